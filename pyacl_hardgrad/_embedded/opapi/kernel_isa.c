/*
 * Chooses the kernel path per kernel row (an operator's kernel set and one dtype
 * combination), at the row's first use, so a path that is slower on this CPU is never
 * picked just for being wider.
 *
 * Candidates are the paths the CPU supports (cpuid + xgetbv on x86_64, NEON is baseline on
 * aarch64) whose table has the row, in preference order: the narrowest SIMD path first, then
 * the wider ones, the portable kernel last (x86_64: avx2, avx512, scalar; aarch64: neon,
 * scalar).  Each candidate runs, interleaved with the others, on the same KSEL_N elements of
 * cache-resident data for a few rounds (the first untimed, each sample repeated to last about
 * KSEL_SAMPLE_NS; at most KSEL_BUDGET_NS in all); its time is the best round.  A candidate replaces the current choice only when it is at
 * least KSEL_MARGIN_PCT percent faster, so noise cannot move the choice away from the
 * preferred path without a clear gain.  Every path gives the same bytes, so the choice never
 * changes a result.  The chosen kernel's time per element is also what the element-wise
 * plan uses to decide whether a call is worth splitting across threads.
 *
 * PYACL_HARDGRAD_KERNEL_ISA=scalar|avx2|avx512|neon forces one path for every row (a path the
 * CPU lacks falls back to scalar; a row the path has no kernel for uses the portable one);
 * PYACL_HARDGRAD_KERNEL_ISA_TRACE=1 prints the setting once and each row's choice when it is
 * made.  PYACL_HARDGRAD_KERNEL_FAKE_NS=path:ns[,path:ns...] replaces the timing of the listed
 * paths by the given ns per element (a test hook: it shows which choice a timing leads to).
 *
 * Rows live in a fixed open-addressing table: looked up without a lock (a row is published
 * with a release store once complete and never changes), inserted and measured under one
 * mutex.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert.h"
#include "hg_isa.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define KSEL_N 2048                       /* elements per timed run */
#define KSEL_ROUNDS 6                     /* timed rounds per candidate at most */
/* One timed sample lasts about this long.  Samples of 3 us gave an AVX-512 Xeon's AVX-512 rows
 * two modes between processes (0.07 or 0.12 ns per element for the same float16 kernel, the
 * scalar one 2.0 or 2.7 alongside), which kept rows on AVX2 that run up to 1.6x faster on
 * AVX-512; samples of 20 us agree between processes (0.094-0.098). */
#define KSEL_SAMPLE_NS 20000.0
#define KSEL_BUDGET_NS 2000000.0          /* the whole measurement of a row, at most (after round 2) */
#define KSEL_MAX_REPS 1024                /* repetitions of one sample, at most */
#define KSEL_MARGIN_PCT 10
#define KSEL_SLOTS 1024                   /* rows the table holds (a power of two) */

static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static int isa_forced = -1;               /* hg_isa, or -1 for auto */
static unsigned isa_avail_mask;           /* bit per hg_isa the CPU supports */
static double fake_ns[HG_ISA_COUNT];      /* > 0: faked ns per element of the path */
static int trace_on;

static const char *isa_name(int isa)
{
    switch (isa) {
    case HG_ISA_AVX2: return "avx2";
    case HG_ISA_AVX512: return "avx512";
    case HG_ISA_NEON: return "neon";
    default: return "scalar";
    }
}

static int isa_from_name(const char *s, size_t len)
{
    static const char *const names[HG_ISA_COUNT] = {"scalar", "avx2", "avx512", "neon"};
    for (int i = 0; i < HG_ISA_COUNT; i++) {
        if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0) {
            return i;
        }
    }
    return -1;
}

#if defined(__x86_64__)
static unsigned long long read_xcr0(void)
{
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

/* Whether the CPU (and the OS, for the register state) supports the path. */
static int isa_available(hg_isa isa)
{
    if (isa == HG_ISA_SCALAR) {
        return 1;
    }
#if defined(__x86_64__)
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) {
        return 0;
    }
    const unsigned int osxsave = 1u << 27, avx = 1u << 28, f16c = 1u << 29;
    if ((c & (osxsave | avx | f16c)) != (osxsave | avx | f16c)) {
        return 0;
    }
    unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6u) != 0x6u) {                      /* SSE and AVX state */
        return 0;
    }
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        return 0;
    }
    if (isa == HG_ISA_AVX2) {
        return (b & (1u << 5)) != 0;
    }
    if (isa == HG_ISA_AVX512) {
        const unsigned int need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);   /* F DQ BW VL */
        return (b & need) == need && (xcr0 & 0xe6u) == 0xe6u;
    }
    return 0;
#elif defined(__aarch64__)
    return isa == HG_ISA_NEON;
#else
    return 0;
#endif
}

/* "avx2:1.5,scalar:3" -> fake_ns; an entry that does not parse is reported and ignored. */
static void read_fake(const char *spec)
{
    const char *p = spec;
    while (*p != '\0') {
        const char *colon = strchr(p, ':');
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int isa = colon && (size_t)(colon - p) < len ? isa_from_name(p, (size_t)(colon - p)) : -1;
        char *end = NULL;
        double v = isa >= 0 ? strtod(colon + 1, &end) : 0.0;
        if (isa < 0 || end != p + len || !(v > 0.0)) {
            fprintf(stderr, "pyacl_hardgrad: PYACL_HARDGRAD_KERNEL_FAKE_NS entry \"%.*s\" is not path:ns "
                    "(path one of scalar, avx2, avx512, neon; ns > 0); ignored\n", (int)len, p);
        } else {
            fake_ns[isa] = v;
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
}

static void isa_init(void)
{
    for (int i = 0; i < HG_ISA_COUNT; i++) {
        if (isa_available((hg_isa)i)) {
            isa_avail_mask |= 1u << i;
        }
    }
    const char *req = getenv("PYACL_HARDGRAD_KERNEL_ISA");
    if (req != NULL && *req != '\0' && strcmp(req, "auto") != 0) {
        int want = isa_from_name(req, strlen(req));
        if (want < 0) {
            fprintf(stderr, "pyacl_hardgrad: PYACL_HARDGRAD_KERNEL_ISA=\"%s\" is not one of auto, scalar, avx2, "
                    "avx512, neon; using auto\n", req);
        } else {
            /* A forced path the CPU lacks falls back to scalar, never to another SIMD path. */
            isa_forced = (isa_avail_mask >> want) & 1u ? want : HG_ISA_SCALAR;
        }
    }
    const char *fake = getenv("PYACL_HARDGRAD_KERNEL_FAKE_NS");
    if (fake != NULL && *fake != '\0') {
        read_fake(fake);
    }
    const char *trace = getenv("PYACL_HARDGRAD_KERNEL_ISA_TRACE");
    trace_on = trace != NULL && strcmp(trace, "1") == 0;
    if (trace_on) {
        fprintf(stderr, "pyacl_hardgrad: kernel isa %s (requested %s)\n",
                isa_forced >= 0 ? isa_name(isa_forced) : "auto", req != NULL && *req != '\0' ? req : "auto");
    }
}

hg_isa hg_kernel_isa(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_forced >= 0 ? (hg_isa)isa_forced : HG_ISA_SCALAR;
}

int hg_kernel_isa_forced(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_forced;
}

unsigned hg_kernel_isa_available(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_avail_mask;
}

const hg_kernel_entry *hg_kernel_find(const hg_kernel_entry *table, const aclDataType *in, int nin,
                                      aclDataType out)
{
    if (table == NULL) {
        return NULL;
    }
    for (const hg_kernel_entry *e = table; e->fn != NULL; e++) {
        int match = e->out == out;
        for (int k = 0; match && k < HG_MAX_IN; k++) {
            match = e->in[k] == (k < nin ? in[k] : ACL_DT_UNDEFINED);
        }
        if (match) {
            return e;
        }
    }
    return NULL;
}

static const hg_kernel_entry *set_table(const hg_kernel_set *set, int isa)
{
    switch (isa) {
    case HG_ISA_SCALAR: return set->scalar;
    case HG_ISA_AVX2: return set->avx2;
    case HG_ISA_AVX512: return set->avx512;
    case HG_ISA_NEON: return set->neon;
    default: return NULL;
    }
}

/* The path's streaming-store twin table (x86_64's SIMD paths), or NULL. */
static const hg_kernel_entry *set_stream_table(const hg_kernel_set *set, int isa)
{
    switch (isa) {
    case HG_ISA_AVX2: return set->avx2_nt;
    case HG_ISA_AVX512: return set->avx512_nt;
    default: return NULL;
    }
}

int hg_kernel_pick_index(const double *ns, const int *order, int count, int margin_pct)
{
    int best = -1;
    for (int i = 0; i < count; i++) {
        int c = order[i];
        if (!(ns[c] > 0.0)) {
            continue;
        }
        if (best < 0 || ns[c] * 100.0 <= ns[best] * (double)(100 - margin_pct)) {
            best = c;
        }
    }
    return best;
}

/* ------------------------------------------------------------------ the row table */

typedef struct ksel_row {
    atomic_int ready;                 /* 1 once every field below is final (release) */
    const hg_kernel_set *set;
    int nin;
    aclDataType in[HG_MAX_IN];
    aclDataType out;
    const hg_kernel_entry *entry;
    hg_kernel_fn fn_nt;               /* entry's streaming-store twin, or NULL */
    int isa;
    int reason;
    double ns[HG_ISA_COUNT];          /* -1: not a candidate, 0: not timed */
    char op[64];
} ksel_row;

static ksel_row rows[KSEL_SLOTS];
static int row_order[KSEL_SLOTS];     /* slots in the order of first use (under ksel_mu) */
static int row_count;
static pthread_mutex_t ksel_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t row_hash(const hg_kernel_set *set, const aclDataType *in, int nin, aclDataType out)
{
    uint64_t h = (uint64_t)(uintptr_t)set * 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < nin; k++) {
        h = (h ^ (uint64_t)(uint32_t)in[k]) * 0x100000001b3ull;
    }
    h = (h ^ (uint64_t)(uint32_t)out) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29)) & (KSEL_SLOTS - 1);
}

static int row_is(const ksel_row *r, const hg_kernel_set *set, const aclDataType *in, int nin, aclDataType out)
{
    if (r->set != set || r->nin != nin || r->out != out) {
        return 0;
    }
    for (int k = 0; k < nin; k++) {
        if (r->in[k] != in[k]) {
            return 0;
        }
    }
    return 1;
}

/* The published row for the key, or NULL (then *free_slot: the first slot not ready on the
 * probe path, -1 when the table is full). */
static const ksel_row *row_lookup(const hg_kernel_set *set, const aclDataType *in, int nin, aclDataType out,
                                  int *free_slot)
{
    size_t h = row_hash(set, in, nin, out);
    for (size_t i = 0; i < KSEL_SLOTS; i++) {
        const ksel_row *r = &rows[(h + i) & (KSEL_SLOTS - 1)];
        if (!atomic_load_explicit(&r->ready, memory_order_acquire)) {
            if (free_slot != NULL) {
                *free_slot = (int)((h + i) & (KSEL_SLOTS - 1));
            }
            return NULL;
        }
        if (row_is(r, set, in, nin, out)) {
            return r;
        }
    }
    if (free_slot != NULL) {
        *free_slot = -1;
    }
    return NULL;
}

/* ------------------------------------------------------------------ measurement */

static double now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return -1.0;
    }
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Deterministic data of the dtype, values spread over [-4, 4) (both branches of the
 * piecewise operators), in elsize-byte elements. */
static void fill(void *buf, aclDataType dt, size_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float v = (float)(s >> 8) * (8.0f / 16777216.0f) - 4.0f;
        switch (dt) {
        case ACL_FLOAT: ((float *)buf)[i] = v; break;
        case ACL_FLOAT16: ((uint16_t *)buf)[i] = hg_f32_to_f16(v); break;
        case ACL_BF16: ((uint16_t *)buf)[i] = hg_f32_to_bf16(v); break;
        default: {
            size_t es = hg_dtype_size(dt);
            memset((char *)buf + i * es, 0, es);
            break;
        }
        }
    }
}

static size_t elsize_or(aclDataType dt)
{
    size_t es = hg_dtype_size(dt);
    return es > 0 ? es : 8;
}

#define KSEL_ALIGN ((size_t)4096)

/* A timing buffer's size: KSEL_N elements, rounded up to KSEL_ALIGN (aligned_alloc's rule). */
static size_t ksel_bytes(aclDataType dt)
{
    size_t n = KSEL_N * elsize_or(dt);
    return (n + KSEL_ALIGN - 1) / KSEL_ALIGN * KSEL_ALIGN;
}

/* Times the candidates (cand[i] -> ns[cand[i]]); 0 when the clock or memory failed. */
static int measure(const hg_kernel_fn *fns, const int *cand, int ncand, const aclDataType *in, int nin,
                   aclDataType out, double *ns)
{
    /* Page-aligned buffers, as the device allocator's large blocks are, so the timing sees the
     * same relative placement of inputs and output (the address bits below 4 KiB, which decide
     * whether a load seems to depend on an earlier store) as most calls. */
    void *bufs[HG_MAX_IN + 1] = {NULL, NULL, NULL, NULL};
    int ok = 1;
    for (int k = 0; k < nin && ok; k++) {
        bufs[k] = aligned_alloc(KSEL_ALIGN, ksel_bytes(in[k]));
        ok = bufs[k] != NULL;
        if (ok) {
            fill(bufs[k], in[k], KSEL_N, (uint32_t)k + 1u);
        }
    }
    if (ok) {
        bufs[HG_MAX_IN] = aligned_alloc(KSEL_ALIGN, ksel_bytes(out));
        ok = bufs[HG_MAX_IN] != NULL;
    }
    double best[HG_ISA_COUNT];
    for (int i = 0; i < ncand; i++) {
        best[i] = -1.0;
    }
    if (ok) {
        const void *ins[HG_MAX_IN] = {bufs[0], bufs[1], bufs[2]};
        hg_params params;
        memset(&params, 0, sizeof params);
        /* Round 0 warms up and sets each candidate's repetitions per sample, so that one
         * sample lasts about KSEL_SAMPLE_NS (well above the clock's resolution). */
        int reps[HG_ISA_COUNT];
        double start = now_ns();
        ok = start >= 0.0;
        for (int round = 0; ok && round <= KSEL_ROUNDS; round++) {
            for (int i = 0; i < ncand; i++) {
                int k = round == 0 ? 1 : reps[i];
                double t0 = now_ns();
                for (int r = 0; r < k; r++) {
                    fns[i](ins, bufs[HG_MAX_IN], &params, 0, KSEL_N);
                }
                double t = (now_ns() - t0) / k;
                if (round == 0) {
                    double want = t > 0.0 ? KSEL_SAMPLE_NS / t : 64.0;
                    reps[i] = want < 1.0 ? 1 : want > KSEL_MAX_REPS ? KSEL_MAX_REPS : (int)want;
                } else if (best[i] < 0.0 || t < best[i]) {
                    best[i] = t;
                }
            }
            if (round >= 2 && now_ns() - start > KSEL_BUDGET_NS) {
                break;
            }
        }
    }
    for (int k = 0; k <= HG_MAX_IN; k++) {
        free(bufs[k]);
    }
    if (!ok) {
        return 0;
    }
    for (int i = 0; i < ncand; i++) {
        /* a run too short for the clock still counts as (nearly) free */
        ns[cand[i]] = (best[i] > 0.0 ? best[i] : 1.0) / KSEL_N;
    }
    return 1;
}

static void op_label(char *dst, size_t cap, const char *func)
{
    static const char suffix[] = "GetWorkspaceSize";
    size_t n = func ? strlen(func) : 0;
    if (n > sizeof suffix - 1 && strcmp(func + n - (sizeof suffix - 1), suffix) == 0) {
        n -= sizeof suffix - 1;
    }
    if (n >= cap) {
        n = cap - 1;
    }
    memcpy(dst, func ? func : "", n);
    dst[n] = '\0';
}

static void trace_row(const ksel_row *r)
{
    static const char *const reasons[] = {"measured", "forced by PYACL_HARDGRAD_KERNEL_ISA", "only candidate",
                                          "faked by PYACL_HARDGRAD_KERNEL_FAKE_NS", "not measured"};
    char dts[96], times[160];
    size_t u = 0;
    for (int k = 0; k < r->nin; k++) {
        u += (size_t)snprintf(dts + u, sizeof dts - u, "%s%s", k ? "," : "", hg_dtype_name(r->in[k]));
        if (u >= sizeof dts) {
            u = sizeof dts - 1;
        }
    }
    snprintf(dts + u, sizeof dts - u, "->%s", hg_dtype_name(r->out));
    u = 0;
    times[0] = '\0';
    for (int i = 0; i < HG_ISA_COUNT; i++) {
        if (r->ns[i] > 0.0 && u < sizeof times) {
            u += (size_t)snprintf(times + u, sizeof times - u, " %s %.4f", isa_name(i), r->ns[i]);
        }
    }
    fprintf(stderr, "pyacl_hardgrad: kernel %s %s: %s (%s;%s ns/element%s)\n", r->op, dts, isa_name(r->isa),
            reasons[r->reason], u ? times : " none", r->fn_nt != NULL ? "; streaming-store twin" : "");
}

/* Fills r (not yet published) for the key: candidates, timing, choice. */
static void choose(ksel_row *r, const char *func, const hg_kernel_set *set, const aclDataType *in, int nin,
                   aclDataType out, int timed)
{
#if defined(__x86_64__)
    static const int pref[] = {HG_ISA_AVX2, HG_ISA_AVX512, HG_ISA_SCALAR};
#elif defined(__aarch64__)
    static const int pref[] = {HG_ISA_NEON, HG_ISA_SCALAR};
#else
    static const int pref[] = {HG_ISA_SCALAR};
#endif
    const int npref = (int)(sizeof pref / sizeof pref[0]);
    const hg_kernel_entry *ent[HG_ISA_COUNT] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < HG_ISA_COUNT; i++) {
        r->ns[i] = -1.0;
        if ((isa_avail_mask >> i) & 1u) {
            ent[i] = hg_kernel_find(set_table(set, i), in, nin, out);
        }
    }
    int cand[HG_ISA_COUNT], ncand = 0;
    if (isa_forced >= 0) {
        /* the forced path, or the portable kernel where that path has none */
        cand[ncand++] = ent[isa_forced] != NULL ? isa_forced : HG_ISA_SCALAR;
    } else {
        for (int i = 0; i < npref; i++) {
            if (ent[pref[i]] != NULL) {
                cand[ncand++] = pref[i];
            }
        }
    }
    int faked = 0;
    hg_kernel_fn fns[HG_ISA_COUNT];
    int tcand[HG_ISA_COUNT], nt = 0;
    for (int i = 0; i < ncand; i++) {
        r->ns[cand[i]] = 0.0;
        if (fake_ns[cand[i]] > 0.0) {
            r->ns[cand[i]] = fake_ns[cand[i]];
            faked = 1;
        } else if (ent[cand[i]] != NULL) {
            tcand[nt] = cand[i];
            fns[nt++] = ent[cand[i]]->fn;
        }
    }
    int measured = timed && (nt == 0 || measure(fns, tcand, nt, in, nin, out, r->ns));
    int pick = isa_forced >= 0 || ncand < 2 || !measured ? (ncand ? cand[0] : -1)
                                                        : hg_kernel_pick_index(r->ns, cand, ncand, KSEL_MARGIN_PCT);
    if (pick < 0) {
        pick = ncand ? cand[0] : HG_ISA_SCALAR;
    }
    r->set = set;
    r->nin = nin;
    for (int k = 0; k < HG_MAX_IN; k++) {
        r->in[k] = k < nin ? in[k] : ACL_DT_UNDEFINED;
    }
    r->out = out;
    r->isa = pick;
    r->entry = ent[pick];
    const hg_kernel_entry *twin = r->entry != NULL ? hg_kernel_find(set_stream_table(set, pick), in, nin, out) : NULL;
    r->fn_nt = twin != NULL ? twin->fn : NULL;
    r->reason = isa_forced >= 0 ? HG_KERNEL_FORCED
              : !measured ? HG_KERNEL_UNMEASURED
              : ncand < 2 ? HG_KERNEL_ONLY
              : faked ? HG_KERNEL_FAKED : HG_KERNEL_MEASURED;
    op_label(r->op, sizeof r->op, func);
}

int hg_kernel_select(const char *func, const hg_kernel_set *set, const aclDataType *in, int nin, aclDataType out,
                     hg_kernel_pick *pick)
{
    pthread_once(&isa_once, isa_init);
    const ksel_row *r = row_lookup(set, in, nin, out, NULL);
    if (r == NULL) {
        pthread_mutex_lock(&ksel_mu);
        int slot = -1;
        r = row_lookup(set, in, nin, out, &slot);   /* another thread may have made it meanwhile */
        if (r == NULL && slot >= 0) {
            ksel_row *w = &rows[slot];
            choose(w, func, set, in, nin, out, 1);
            if (w->entry != NULL) {
                row_order[row_count++] = slot;
                atomic_store_explicit(&w->ready, 1, memory_order_release);
                if (trace_on) {
                    trace_row(w);
                }
                r = w;
            } else {
                memset(w, 0, sizeof *w);   /* no kernel at all: nothing to remember */
            }
        }
        pthread_mutex_unlock(&ksel_mu);
        if (r == NULL && slot < 0) {
            /* The table is full (more rows than any registry has): the first candidate, untimed. */
            ksel_row tmp;
            memset(&tmp, 0, sizeof tmp);
            choose(&tmp, func, set, in, nin, out, 0);
            if (tmp.entry == NULL) {
                return 0;
            }
            pick->entry = tmp.entry;
            pick->fn_nt = tmp.fn_nt;
            pick->isa = tmp.isa;
            pick->ns_per_elem = tmp.ns[tmp.isa] > 0.0 ? tmp.ns[tmp.isa] : 0.0;
            return 1;
        }
    }
    if (r == NULL) {
        return 0;
    }
    pick->entry = r->entry;
    pick->fn_nt = r->fn_nt;
    pick->isa = r->isa;
    pick->ns_per_elem = r->ns[r->isa] > 0.0 ? r->ns[r->isa] : 0.0;
    return 1;
}

/* ------------------------------------------------------------------ the C query */

ACL_FUNC_VISIBILITY aclError hgGetKernelChoices(hgKernelChoice *choices, int32_t capacity, int32_t *count)
{
    if (count == NULL || capacity < 0 || (choices == NULL && capacity > 0)) {
        hg_set_error("hgGetKernelChoices", "%s", count == NULL ? "count is NULL"
                     : capacity < 0 ? "capacity is negative" : "choices is NULL with capacity > 0");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_once(&isa_once, isa_init);
    pthread_mutex_lock(&ksel_mu);
    int n = row_count;
    for (int i = 0; i < n && i < capacity; i++) {
        const ksel_row *r = &rows[row_order[i]];
        hgKernelChoice *c = &choices[i];
        memset(c, 0, sizeof *c);
        snprintf(c->op, sizeof c->op, "%s", r->op);
        c->inCount = r->nin;
        for (int k = 0; k < HG_MAX_IN; k++) {
            c->inDtypes[k] = (int32_t)r->in[k];
        }
        c->outDtype = (int32_t)r->out;
        c->path = r->isa;
        c->reason = r->reason;
        for (int p = 0; p < HG_ISA_COUNT; p++) {
            c->nsPerElement[p] = r->ns[p];
        }
        double bytes_per_elem = (double)elsize_or(r->out);
        for (int k = 0; k < r->nin; k++) {
            bytes_per_elem += (double)elsize_or(r->in[k]);
        }
        c->parallelMinElements = hg_split_min_elements(r->ns[r->isa] > 0.0 ? r->ns[r->isa] : 0.0, bytes_per_elem);
    }
    pthread_mutex_unlock(&ksel_mu);
    *count = n;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError hgGetKernelSettings(hgKernelSettings *s)
{
    if (s == NULL) {
        hg_set_error("hgGetKernelSettings", "settings is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_once(&isa_once, isa_init);
    memset(s, 0, sizeof *s);
    s->forcedPath = isa_forced;
    s->availablePaths = (int32_t)isa_avail_mask;
    s->threads = hg_pool_size();
    s->marginPercent = KSEL_MARGIN_PCT;
    s->splitMinNs = hg_pool_split_ns();
    s->handoffNs = hg_pool_handoff_ns();
    s->l1CacheBytes = hg_pool_l1_bytes();
    for (int c = 0; c < (int)(sizeof s->memoryNsPerByte / sizeof s->memoryNsPerByte[0]); c++) {
        s->memoryNsPerByte[c] = hg_pool_memory_ns_per_byte(c);
    }
    s->streamMinBytes = hg_stream_min_bytes();
    s->streamedCalls = hg_streamed_calls();
    return ACL_SUCCESS;
}
