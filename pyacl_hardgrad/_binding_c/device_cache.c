/* The caching device allocator (declarations and contract: device_cache.h).  Appended to the
 * cffi module's source after the function table, before the handle layer that uses it: the ACL
 * names here are the bound pointers (embedded runtime or CANN). */

#define HGB_CACHE_BINS 224          /* class 0: <= 512 bytes; then 4 per power of two up to 2^62 */
#define HGB_CACHE_MAX_CLASS ((uint64_t)1 << 62)
#define HGB_CACHE_UNTRACKED (-2)    /* bin of a block outside the statistics (an untracked device id) */

typedef struct hgb_bin {
    void **v;
    int32_t n, cap;
} hgb_bin;

typedef struct hgb_devcache {
    int32_t lock;                   /* a spin lock over everything below (held for a few stores) */
    hgb_cache_stats st;
    hgb_bin bins[HGB_CACHE_BINS];
} hgb_devcache;

static hgb_devcache *hgb_caches[HGB_CACHE_DEVICES];
static int32_t hgb_cache_mode = 1;                  /* 1 caching, 0 direct (atomic) */
static uint64_t hgb_cache_max_idle = (uint64_t)1 << 30;

void hgb_cache_configure(int caching, uint64_t limit)
{
    __atomic_store_n(&hgb_cache_max_idle, limit, __ATOMIC_RELAXED);
    __atomic_store_n(&hgb_cache_mode, caching ? 1 : 0, __ATOMIC_RELEASE);
}

int hgb_cache_caching(void) { return __atomic_load_n(&hgb_cache_mode, __ATOMIC_ACQUIRE); }
uint64_t hgb_cache_limit(void) { return __atomic_load_n(&hgb_cache_max_idle, __ATOMIC_RELAXED); }

/* The class of a request: its size and bin, or bin -1 for a size that is not rounded. */
static uint64_t hgb_class(uint64_t size, int32_t *bin)
{
    if (size <= 512) {
        *bin = 0;
        return 512;
    }
    if (size > HGB_CACHE_MAX_CLASS) {
        *bin = -1;
        return size;
    }
    int h = 63 - __builtin_clzll(size - 1);         /* 2^h < size <= 2^(h+1), h >= 9 */
    uint64_t step = (uint64_t)1 << (h - 2);         /* four classes: 2^h + k * 2^(h-2), k = 1..4 */
    uint64_t rounded = (size + step - 1) & ~(step - 1);
    int k = (int)(rounded >> (h - 2)) - 4;          /* 1..4 */
    *bin = 1 + (h - 9) * 4 + (k - 1);
    return rounded;
}

uint64_t hgb_cache_class_size(uint64_t size)
{
    int32_t bin;
    return hgb_cache_caching() ? hgb_class(size ? size : 1, &bin) : size;
}

/* A spin lock for a few stores (also the handle layer's, over a stream's held list). */
static void hgb_spin_lock(int32_t *lock)
{
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(lock, __ATOMIC_RELAXED))
            sched_yield();
    }
}

static void hgb_spin_unlock(int32_t *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#define hgb_cache_lock(c) hgb_spin_lock(&(c)->lock)
#define hgb_cache_unlock(c) hgb_spin_unlock(&(c)->lock)

/* The device's cache, made on first use; NULL for an untracked id (or no memory). */
static hgb_devcache *hgb_cache_of(int32_t device, bool make)
{
    if (device < 0 || device >= HGB_CACHE_DEVICES)
        return NULL;
    hgb_devcache *c = __atomic_load_n(&hgb_caches[device], __ATOMIC_ACQUIRE);
    if (c != NULL || !make)
        return c;
    hgb_devcache *fresh = calloc(1, sizeof *fresh);
    if (fresh == NULL)
        return NULL;
    hgb_devcache *expected = NULL;
    if (__atomic_compare_exchange_n(&hgb_caches[device], &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return fresh;
    free(fresh);
    return expected;
}

static void hgb_cache_peaks(hgb_cache_stats *s)
{
    if (s->in_use_bytes > s->peak_in_use_bytes)
        s->peak_in_use_bytes = s->in_use_bytes;
    if (s->reserved_bytes > s->peak_reserved_bytes)
        s->peak_reserved_bytes = s->reserved_bytes;
}

/* aclrtMalloc failed and the allocator handles it: drop the failure's error text and code so
 * that a retry that succeeds leaves no trace of it. */
static void hgb_cache_forget_failure(void)
{
    (void)aclGetRecentErrMsg();
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

int hgb_cache_alloc(int32_t device, uint64_t size, void **ptr, uint64_t *block, int32_t *bin)
{
    if (size == 0)
        size = 1;                   /* ACL refuses 0; an empty allocation still gets an address */
    int caching = hgb_cache_caching();
    hgb_devcache *c = hgb_cache_of(device, true);
    int32_t b = -1;
    uint64_t csize = caching && c != NULL ? hgb_class(size, &b) : size;
    if (c != NULL) {
        hgb_cache_lock(c);
        c->st.allocations++;
        if (b >= 0 && c->bins[b].n > 0) {
            *ptr = c->bins[b].v[--c->bins[b].n];
            c->st.hits++;
            c->st.cached_blocks--;
            c->st.cached_bytes -= (int64_t)csize;
            c->st.in_use_blocks++;
            c->st.in_use_bytes += (int64_t)csize;
            c->st.requested_bytes += (int64_t)size;
            hgb_cache_peaks(&c->st);
            hgb_cache_unlock(c);
            *block = csize;
            *bin = b;
            return 0;
        }
        c->st.misses++;
        hgb_cache_unlock(c);
    }
    void *p = NULL;
    int st = aclrtMalloc(&p, csize, ACL_MEM_MALLOC_HUGE_FIRST);
    if (st != 0 && c != NULL) {
        int64_t idle = __atomic_load_n(&c->st.cached_blocks, __ATOMIC_RELAXED);
        if (idle > 0 || csize != size) {
            /* out of memory (or any other failure): free the idle blocks and try once more, then
             * without the rounding */
            hgb_cache_forget_failure();
            (void)hgb_cache_empty(device, NULL);
            st = aclrtMalloc(&p, csize, ACL_MEM_MALLOC_HUGE_FIRST);
            if (st != 0 && csize != size) {
                hgb_cache_forget_failure();
                csize = size;
                b = -1;
                st = aclrtMalloc(&p, csize, ACL_MEM_MALLOC_HUGE_FIRST);
            }
            hgb_cache_lock(c);
            c->st.oom_retries++;
            hgb_cache_unlock(c);
        }
    }
    if (st != 0) {
        if (c != NULL) {
            hgb_cache_lock(c);
            c->st.alloc_failures++;
            hgb_cache_unlock(c);
        }
        return st;
    }
    if (c != NULL) {
        hgb_cache_lock(c);
        c->st.in_use_blocks++;
        c->st.in_use_bytes += (int64_t)csize;
        c->st.requested_bytes += (int64_t)size;
        c->st.reserved_blocks++;
        c->st.reserved_bytes += (int64_t)csize;
        hgb_cache_peaks(&c->st);
        hgb_cache_unlock(c);
    }
    *ptr = p;
    *block = csize;
    *bin = c != NULL ? b : HGB_CACHE_UNTRACKED;
    return 0;
}

/* Keep `p` in bin `b` (the caller holds the lock): false when there is no room for it. */
static bool hgb_bin_push(hgb_bin *bin, void *p)
{
    if (bin->n == bin->cap) {
        int32_t cap = bin->cap ? bin->cap * 2 : 8;
        void **v = realloc(bin->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return false;
        bin->v = v;
        bin->cap = cap;
    }
    bin->v[bin->n++] = p;
    return true;
}

void hgb_cache_free(int32_t device, void *ptr, uint64_t block, int32_t bin, uint64_t requested)
{
    hgb_devcache *c = bin == HGB_CACHE_UNTRACKED ? NULL : hgb_cache_of(device, false);
    if (c != NULL) {
        hgb_cache_lock(c);
        c->st.frees++;
        c->st.in_use_blocks--;
        c->st.in_use_bytes -= (int64_t)block;
        c->st.requested_bytes -= (int64_t)requested;
        if (bin >= 0 && hgb_cache_caching() && (uint64_t)c->st.cached_bytes + block <= hgb_cache_limit() &&
            hgb_bin_push(&c->bins[bin], ptr)) {
            c->st.cached_blocks++;
            c->st.cached_bytes += (int64_t)block;
            hgb_cache_unlock(c);
            return;
        }
        c->st.reserved_blocks--;
        c->st.reserved_bytes -= (int64_t)block;
        c->st.releases++;
        hgb_cache_unlock(c);
    }
    int st = aclrtFree(ptr);
    if (st != 0)
        hgb_py_cleanup_failed("aclrtFree", st);
}

static int hgb_cache_empty_one(hgb_devcache *c)
{
    hgb_bin taken[HGB_CACHE_BINS];
    hgb_cache_lock(c);
    memcpy(taken, c->bins, sizeof taken);
    memset(c->bins, 0, sizeof c->bins);
    c->st.reserved_blocks -= c->st.cached_blocks;
    c->st.reserved_bytes -= c->st.cached_bytes;
    c->st.releases += c->st.cached_blocks;
    c->st.cached_blocks = 0;
    c->st.cached_bytes = 0;
    hgb_cache_unlock(c);
    int first = 0;
    for (int b = 0; b < HGB_CACHE_BINS; b++) {
        for (int32_t i = 0; i < taken[b].n; i++) {
            int st = aclrtFree(taken[b].v[i]);
            if (st != 0 && first == 0)
                first = st;
        }
        free(taken[b].v);
    }
    return first;
}

int hgb_cache_empty(int32_t device, aclrtContext context)
{
    aclrtContext prev = NULL;
    bool switched = false;
    if (context != NULL && aclrtGetCurrentContext(&prev) == 0 && prev != context)
        switched = aclrtSetCurrentContext(context) == 0;
    int first = 0;
    for (int32_t d = device < 0 ? 0 : device; d < HGB_CACHE_DEVICES; d++) {
        hgb_devcache *c = hgb_cache_of(d, false);
        if (c != NULL && __atomic_load_n(&c->st.cached_blocks, __ATOMIC_RELAXED) > 0) {
            int st = hgb_cache_empty_one(c);
            if (st != 0 && first == 0)
                first = st;
        }
        if (device >= 0)
            break;
    }
    if (switched && prev != NULL)
        (void)aclrtSetCurrentContext(prev);
    return first;
}

int hgb_cache_stats_of(int32_t device, hgb_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    if (device < 0 || device >= HGB_CACHE_DEVICES)
        return 0;
    hgb_devcache *c = hgb_cache_of(device, false);
    if (c != NULL) {
        hgb_cache_lock(c);
        *out = c->st;
        hgb_cache_unlock(c);
    }
    return 1;
}

static int64_t hgb_cache_sum(bool bytes)
{
    int64_t total = 0;
    for (int d = 0; d < HGB_CACHE_DEVICES; d++) {
        hgb_devcache *c = hgb_cache_of(d, false);
        if (c != NULL) {
            hgb_cache_lock(c);
            total += bytes ? c->st.cached_bytes : c->st.cached_blocks;
            hgb_cache_unlock(c);
        }
    }
    return total;
}

int64_t hgb_cache_idle_blocks(void) { return hgb_cache_sum(false); }
int64_t hgb_cache_idle_bytes(void) { return hgb_cache_sum(true); }

void hgb_cache_reset_stats(int32_t device)
{
    for (int32_t d = device < 0 ? 0 : device; d < HGB_CACHE_DEVICES; d++) {
        hgb_devcache *c = hgb_cache_of(d, false);
        if (c != NULL) {
            hgb_cache_lock(c);
            c->st.allocations = c->st.hits = c->st.misses = c->st.frees = c->st.releases = 0;
            c->st.oom_retries = c->st.alloc_failures = 0;
            c->st.peak_in_use_bytes = c->st.in_use_bytes;
            c->st.peak_reserved_bytes = c->st.reserved_bytes;
            hgb_cache_unlock(c);
        }
        if (device >= 0)
            break;
    }
}
