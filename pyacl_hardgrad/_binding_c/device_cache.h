/* The binding's caching device allocator: every device allocation the Python layer makes for
 * tensors, outputs, workspaces and DeviceMemory goes through it (device_cache.c).  Like
 * fused_calls.h, this file is both cffi's declarations and part of the module's C source.
 *
 * A request is rounded up to a size class (512 bytes, then four classes per power of two) and
 * served from the device's idle blocks of that class when there is one (a hit), otherwise from
 * aclrtMalloc (a miss).  A block comes back when the handle layer destroys its memory object,
 * i.e. when its last holder lets go; queued stream work holds what it uses until the stream's
 * next wait, so a block is never handed out again while a kernel may still touch it.  Idle
 * blocks are kept up to a limit per device (beyond it they are freed at once); when aclrtMalloc
 * fails, the device's idle blocks are freed and the allocation is tried once more (then, if the
 * size was rounded up, once with the exact size).  The Python layer frees a device's idle blocks
 * before it resets the device, and every device's before aclFinalize.
 *
 * "direct" mode (PYACL_HARDGRAD_ALLOCATOR=direct) keeps the statistics but caches nothing:
 * every request is one aclrtMalloc of its exact size, every release one aclrtFree. */
#define HGB_CACHE_DEVICES 256   /* device ids the allocator tracks (others: direct, no statistics) */

typedef struct hgb_cache_stats {
    int64_t in_use_bytes;        /* bytes of blocks handed out and not yet given back (class sizes) */
    int64_t in_use_blocks;
    int64_t requested_bytes;     /* the exact sizes asked for by the blocks in use */
    int64_t cached_bytes;        /* idle blocks kept for reuse */
    int64_t cached_blocks;
    int64_t reserved_bytes;      /* in use + cached: what the allocator holds from aclrtMalloc */
    int64_t reserved_blocks;
    int64_t peak_in_use_bytes;
    int64_t peak_reserved_bytes;
    int64_t allocations;         /* requests served (hits + misses) */
    int64_t hits;                /* served from an idle block */
    int64_t misses;              /* served by aclrtMalloc */
    int64_t frees;               /* blocks given back by their last holder */
    int64_t releases;            /* blocks the allocator gave back to aclrtFree */
    int64_t oom_retries;         /* aclrtMalloc failures answered by freeing the idle blocks */
    int64_t alloc_failures;      /* requests that failed even after that */
} hgb_cache_stats;

/* Mode (1 caching, 0 direct) and the idle limit per device in bytes; set before the first
 * allocation (later calls change the policy for the blocks given back from then on). */
void hgb_cache_configure(int caching, uint64_t limit);
int hgb_cache_caching(void);
uint64_t hgb_cache_limit(void);
/* The class a request of `size` bytes is served with (size itself when it is not cached). */
uint64_t hgb_cache_class_size(uint64_t size);
/* `size` bytes on `device` (the current context must be one of that device); a status.
 * *block: the bytes reserved for it; *bin: its class (negative: freed directly on release). */
int hgb_cache_alloc(int32_t device, uint64_t size, void **ptr, uint64_t *block, int32_t *bin);
/* Give back a block from hgb_cache_alloc (its last holder let go). */
void hgb_cache_free(int32_t device, void *ptr, uint64_t block, int32_t bin, uint64_t requested);
/* Free the idle blocks of `device` (-1: of every device) with `context` current meanwhile (NULL:
 * whatever is current); the first failing aclrtFree status, or 0. */
int hgb_cache_empty(int32_t device, aclrtContext context);
/* The statistics of `device`: 1, or 0 when it is outside the tracked ids (zeros then). */
int hgb_cache_stats_of(int32_t device, hgb_cache_stats *out);
/* Idle blocks and bytes over every device (what the runtime counts as allocated but nobody uses). */
int64_t hgb_cache_idle_blocks(void);
int64_t hgb_cache_idle_bytes(void);
/* Zero the counters (allocations, hits, ...) and set the peaks to the current values. */
void hgb_cache_reset_stats(int32_t device);
