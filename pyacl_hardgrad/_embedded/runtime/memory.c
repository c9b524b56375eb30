/* Device and host memory: allocation with per-device capacity accounting, and the
 * registries that let copies prove their device pointers are live allocations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pyacl_hardgrad/embedded.h"
#include "prof.h"
#include "rt_internal.h"

#define DEVICE_ALIGN 512u

typedef struct {
    uintptr_t base;
    size_t size;
    int device;
    int busy;                 /* synchronous copies/sets running on it (a free waits for 0) */
} hg_block;

typedef struct {
    hg_block *v;
    size_t n, cap;
} hg_blocks;

static pthread_mutex_t g_mem_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_mem_idle = PTHREAD_COND_INITIALIZER;   /* a block's busy dropped to 0 */
static hg_blocks g_dev_blocks, g_host_blocks;
static uint64_t g_dev_used[HG_MAX_DEVICES];

/* Index of the first block whose base is > p. */
static size_t upper_bound(const hg_blocks *b, uintptr_t p)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->v[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool blocks_insert(hg_blocks *b, uintptr_t base, size_t size, int device)
{
    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 64;
        hg_block *nv = realloc(b->v, ncap * sizeof *nv);
        if (!nv)
            return false;
        b->v = nv;
        b->cap = ncap;
    }
    size_t i = upper_bound(b, base);
    memmove(&b->v[i + 1], &b->v[i], (b->n - i) * sizeof *b->v);
    b->v[i].base = base;
    b->v[i].size = size;
    b->v[i].device = device;
    b->v[i].busy = 0;
    b->n++;
    return true;
}

/* Index of the block starting exactly at p, or (size_t)-1. */
static size_t blocks_find_exact(const hg_blocks *b, uintptr_t p)
{
    size_t i = upper_bound(b, p);
    if (i > 0 && b->v[i - 1].base == p)
        return i - 1;
    return (size_t)-1;
}

/* With g_mem_mu held: the index of the block starting at p once no synchronous copy or set
 * runs on it ((size_t)-1 when there is none).  A free from one thread while another copies
 * waits for the copy instead of pulling the memory from under it. */
static size_t wait_not_busy(hg_blocks *b, uintptr_t p)
{
    for (;;) {
        size_t i = blocks_find_exact(b, p);
        if (i == (size_t)-1 || b->v[i].busy == 0)
            return i;
        pthread_cond_wait(&g_mem_idle, &g_mem_mu);
    }
}

/* The block of b holding [a, a + n) (n == 0: the block holding the byte at a), or NULL
 * (g_mem_mu held).  Every registry lookup goes through it. */
static hg_block *block_holding(hg_blocks *b, uintptr_t a, size_t n)
{
    size_t i = upper_bound(b, a);
    if (i == 0)
        return NULL;
    hg_block *blk = &b->v[i - 1];
    size_t off = a - blk->base;
    return off < blk->size && n <= blk->size - off ? blk : NULL;
}

/* Mark the registered blocks holding [p_k, p_k + n_k) busy for a synchronous copy or set
 * (p_k NULL: no side k).  A side with need_k set was checked to be device memory a moment
 * ago: false when it no longer is (freed by another thread meanwhile), with nothing held.
 * held[k] gets the base to pass to drop_holds (0 for an unregistered host range). */
static bool take_holds(const void *p0, size_t n0, bool need0, const void *p1, size_t n1, bool need1,
                       uintptr_t held[2])
{
    const void *ps[2] = {p0, p1};
    size_t ns[2] = {n0, n1};
    bool need[2] = {need0, need1};
    hg_block *blks[2] = {NULL, NULL};
    bool ok = true;
    pthread_mutex_lock(&g_mem_mu);
    for (int k = 0; k < 2 && ok; ++k) {
        if (!ps[k])
            continue;
        uintptr_t a = (uintptr_t)ps[k];
        blks[k] = block_holding(&g_dev_blocks, a, ns[k]);
        if (!blks[k] && !need[k])
            blks[k] = block_holding(&g_host_blocks, a, ns[k]);
        ok = blks[k] || !need[k];
    }
    for (int k = 0; k < 2; ++k) {
        held[k] = ok && blks[k] ? blks[k]->base : 0;
        if (held[k])
            blks[k]->busy++;
    }
    pthread_mutex_unlock(&g_mem_mu);
    return ok;
}

static void drop_holds(const uintptr_t held[2])
{
    pthread_mutex_lock(&g_mem_mu);
    for (int k = 0; k < 2; ++k) {
        if (!held[k])
            continue;
        size_t i = blocks_find_exact(&g_dev_blocks, held[k]);
        hg_block *blk = i != (size_t)-1 ? &g_dev_blocks.v[i] : NULL;
        if (!blk) {
            i = blocks_find_exact(&g_host_blocks, held[k]);
            blk = i != (size_t)-1 ? &g_host_blocks.v[i] : NULL;
        }
        if (blk && --blk->busy == 0)
            pthread_cond_broadcast(&g_mem_idle);
    }
    pthread_mutex_unlock(&g_mem_mu);
}

static void blocks_erase(hg_blocks *b, size_t i)
{
    memmove(&b->v[i], &b->v[i + 1], (b->n - i - 1) * sizeof *b->v);
    b->n--;
}

/* Is [p, p + n) inside one live aclrtMallocHost block? */
static bool is_host_block_range(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&g_mem_mu);
    size_t i = upper_bound(&g_host_blocks, a);
    bool ok = false;
    if (i > 0) {
        const hg_block *blk = &g_host_blocks.v[i - 1];
        size_t off = a - blk->base;
        ok = off < blk->size && n <= blk->size - off;
    }
    pthread_mutex_unlock(&g_mem_mu);
    return ok;
}

int hg_mem_device_of(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&g_mem_mu);
    const hg_block *blk = block_holding(&g_dev_blocks, a, 0);
    int dev = !blk ? -1 : n <= blk->size - (a - blk->base) ? blk->device : -2;
    pthread_mutex_unlock(&g_mem_mu);
    return dev;
}

HG_INTERNAL int hg_memory_device(const void *p, size_t n)
{
    return hg_mem_device_of(p, n);
}

size_t hg_mem_used(int dev)
{
    pthread_mutex_lock(&g_mem_mu);
    size_t used = dev >= 0 && dev < HG_MAX_DEVICES ? (size_t)g_dev_used[dev] : 0;
    pthread_mutex_unlock(&g_mem_mu);
    return used;
}

void hg_mem_init(int device_count)
{
    (void)device_count;
    pthread_mutex_lock(&g_mem_mu);
    memset(g_dev_used, 0, sizeof g_dev_used);
    pthread_mutex_unlock(&g_mem_mu);
}

void hg_mem_release_all(void)
{
    pthread_mutex_lock(&g_mem_mu);
    for (size_t i = 0; i < g_dev_blocks.n; ++i) {
        hg_rt_count_add(HG_RTC_DEV_ALLOCS, -1);
        hg_rt_count_add(HG_RTC_DEV_BYTES, -(int64_t)g_dev_blocks.v[i].size);
        free((void *)g_dev_blocks.v[i].base);
    }
    for (size_t i = 0; i < g_host_blocks.n; ++i) {
        hg_rt_count_add(HG_RTC_HOST_ALLOCS, -1);
        free((void *)g_host_blocks.v[i].base);
    }
    free(g_dev_blocks.v);
    free(g_host_blocks.v);
    memset(&g_dev_blocks, 0, sizeof g_dev_blocks);
    memset(&g_host_blocks, 0, sizeof g_host_blocks);
    memset(g_dev_used, 0, sizeof g_dev_used);
    pthread_mutex_unlock(&g_mem_mu);
}

/* Blocks of this size and up are placed on huge-page boundaries and offered huge pages (as
 * numpy does for its large arrays): a kernel streaming through hundreds of MB otherwise spends
 * a few percent on TLB misses, and the host arrays it is compared with have huge pages. */
#define HUGE_BLOCK_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void *alloc_aligned(size_t size)
{
    if (size > SIZE_MAX - HUGE_PAGE)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_BLOCK_MIN) {
        size_t rounded = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = aligned_alloc(HUGE_PAGE, rounded);
        if (p != NULL)
            (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: without it, small pages */
        return p;
    }
#endif
    size_t rounded = (size + DEVICE_ALIGN - 1) & ~(size_t)(DEVICE_ALIGN - 1);
    return aligned_alloc(DEVICE_ALIGN, rounded);
}

static aclError device_malloc(const char *func, void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !devPtr) {
        hg_set_error(func, "devPtr is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc && size == 0) {
        hg_set_error(func, "size (0) must be greater than 0");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc && ((int)policy < ACL_MEM_MALLOC_HUGE_FIRST || (int)policy > ACL_MEM_MALLOC_NORMAL_ONLY_P2P)) {
        hg_set_error(func, "policy (%d) is not an aclrtMemMallocPolicy value", (int)policy);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    uint64_t capacity = hg_rt.mem_capacity;
    pthread_mutex_unlock(&hg_rt.mu);
    if (rc)
        return rc;

    /* account first so an oversized request never reaches the host allocator */
    pthread_mutex_lock(&g_mem_mu);
    uint64_t used = g_dev_used[dev];
    bool fits = used <= capacity && (uint64_t)size <= capacity - used;
    if (fits)
        g_dev_used[dev] += size;
    pthread_mutex_unlock(&g_mem_mu);
    if (!fits) {
        hg_set_error(func, "size (%zu) exceeds the free memory of device %d (%llu of %llu bytes free)", size,
                     dev, (unsigned long long)(used <= capacity ? capacity - used : 0),
                     (unsigned long long)capacity);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    void *p = alloc_aligned(size);
    pthread_mutex_lock(&g_mem_mu);
    bool ok = p && blocks_insert(&g_dev_blocks, (uintptr_t)p, size, dev);
    if (!ok)
        g_dev_used[dev] -= size;
    pthread_mutex_unlock(&g_mem_mu);
    if (!ok) {
        free(p);
        hg_set_error(func, "size (%zu): the host could not provide the memory", size);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    hg_rt_count_add(HG_RTC_DEV_ALLOCS, 1);
    hg_rt_count_add(HG_RTC_DEV_BYTES, (int64_t)size);
    if (HG_CHECKING())
        hg_chk_alloc(func, p, size, dev, false);
    if (HG_PROFILING())
        hg_prof_memory(dev);
    *devPtr = p;
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_DEBUG, func, "%zu bytes at %p on device %d", size, p, dev);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return hg_rt_ret(device_malloc("aclrtMalloc", devPtr, size, policy));
}

/* Host and device share one coherent memory here, so cached memory is ordinary memory. */
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return hg_rt_ret(device_malloc("aclrtMallocCached", devPtr, size, policy));
}

/* Blocks are 512-byte aligned, which satisfies the 32-byte alignment asked for. */
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return hg_rt_ret(device_malloc("aclrtMallocAlign32", devPtr, size, policy));
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr)
{
    aclError rc = hg_check_init("aclrtFree");
    if (rc)
        return hg_rt_ret(rc);
    if (!devPtr) {
        hg_set_error("aclrtFree", "devPtr is NULL");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if (HG_CHECKING())
        hg_chk_free("aclrtFree", devPtr, false);
    pthread_mutex_lock(&g_mem_mu);
    size_t i = wait_not_busy(&g_dev_blocks, (uintptr_t)devPtr);
    size_t size = 0;
    int dev = -1;
    if (i != (size_t)-1) {
        size = g_dev_blocks.v[i].size;
        dev = g_dev_blocks.v[i].device;
        g_dev_used[dev] -= size;
        blocks_erase(&g_dev_blocks, i);
    }
    pthread_mutex_unlock(&g_mem_mu);
    if (i == (size_t)-1) {
        hg_set_error("aclrtFree", "devPtr (%p) was not returned by aclrtMalloc, or was already freed", devPtr);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_DEBUG, "aclrtFree", "%zu bytes at %p", size, devPtr);
    if (!(HG_CHECKING() && hg_chk_keep_freed(devPtr, size)))
        free(devPtr);
    hg_rt_count_add(HG_RTC_DEV_ALLOCS, -1);
    hg_rt_count_add(HG_RTC_DEV_BYTES, -(int64_t)size);
    if (HG_PROFILING())
        hg_prof_memory(dev);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    aclError rc = hg_check_init("aclrtMallocHost");
    if (rc)
        return hg_rt_ret(rc);
    if (!hostPtr) {
        hg_set_error("aclrtMallocHost", "hostPtr is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (size == 0) {
        hg_set_error("aclrtMallocHost", "size (0) must be greater than 0");
        return ACL_ERROR_INVALID_PARAM;
    }
    void *p = alloc_aligned(size);
    pthread_mutex_lock(&g_mem_mu);
    bool ok = p && blocks_insert(&g_host_blocks, (uintptr_t)p, size, -1);
    pthread_mutex_unlock(&g_mem_mu);
    if (!ok) {
        free(p);
        hg_set_error("aclrtMallocHost", "size (%zu): the host could not provide the memory", size);
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    hg_rt_count_add(HG_RTC_HOST_ALLOCS, 1);
    if (HG_CHECKING())
        hg_chk_alloc("aclrtMallocHost", p, size, -1, true);
    *hostPtr = p;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr)
{
    aclError rc = hg_check_init("aclrtFreeHost");
    if (rc)
        return hg_rt_ret(rc);
    if (!hostPtr) {
        hg_set_error("aclrtFreeHost", "hostPtr is NULL");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if (HG_CHECKING())
        hg_chk_free("aclrtFreeHost", hostPtr, true);
    pthread_mutex_lock(&g_mem_mu);
    size_t i = wait_not_busy(&g_host_blocks, (uintptr_t)hostPtr);
    size_t size = 0;
    if (i != (size_t)-1) {
        size = g_host_blocks.v[i].size;
        blocks_erase(&g_host_blocks, i);
    }
    pthread_mutex_unlock(&g_mem_mu);
    if (i == (size_t)-1) {
        hg_set_error("aclrtFreeHost", "hostPtr (%p) was not returned by aclrtMallocHost, or was already freed",
                     hostPtr);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    /* in checking mode kept a while (poisoned), as device blocks are, so that the C library does not
     * hand its bytes to other memory the checker would take for the freed block */
    if (!(HG_CHECKING() && hg_chk_keep_freed(hostPtr, size)))
        free(hostPtr);
    hg_rt_count_add(HG_RTC_HOST_ALLOCS, -1);
    return ACL_SUCCESS;
}

/* Where one side of a copy or set lies: a device (>= 0) or the host (-1).  A range that
 * starts in a device allocation must end inside it. */
static aclError locate(const char *func, const char *what, const void *p, size_t n, int *dev)
{
    if (HG_CHECKING())
        hg_chk_bounds(func, what, p, n);
    *dev = hg_mem_device_of(p, n);
    if (*dev == -2) {
        hg_set_error(func, "%s (%p) with count (%zu) runs past the end of its device allocation", what, p, n);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

/* May work issued on device `issuer` touch memory of device `owner`? */
static aclError check_access(const char *func, const char *what, int issuer, int owner)
{
    if (owner < 0 || issuer < 0 || hg_peer_enabled(issuer, owner))
        return ACL_SUCCESS;
    if (HG_CHECKING())
        hg_check_finding("wrong-device", func, "%s: %s is memory of device %d but the work runs on device %d without "
                         "peer access (aclrtDeviceEnablePeerAccess)", func, what, owner, issuer);
    hg_set_error(func, "%s is memory of device %d but the work runs on device %d and peer access from device %d "
                 "to device %d is not enabled (aclrtDeviceEnablePeerAccess)", what, owner, issuer, issuer, owner);
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* Checks shared by aclrtMemcpy and aclrtMemcpyAsync.  The kind is advisory, as in CANN's
 * runtime: the addresses decide the direction.  *nothing is set when the copy is a valid
 * no-op (count 0).  issuer is the device the copy runs on (the stream's, or -1 for the
 * current one); *dst_dev / *src_dev tell where each side lies. */
static aclError check_copy(const char *func, void *dst, size_t destMax, const void *src, size_t count,
                           aclrtMemcpyKind kind, int issuer, bool *nothing, int *dst_dev, int *src_dev)
{
    *nothing = false;
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        hg_set_error(func, "kind (%d) is not an aclrtMemcpyKind value for this call (0..5)", (int)kind);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count == 0) {
        *nothing = true;
        return ACL_SUCCESS;
    }
    if (!dst || !src) {
        hg_set_error(func, "%s is NULL with count (%zu)", !dst ? "dst" : "src", count);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > destMax) {
        hg_set_error(func, "count (%zu) exceeds destMax (%zu)", count, destMax);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclError rc = locate(func, "dst", dst, count, dst_dev);
    if (!rc)
        rc = locate(func, "src", src, count, src_dev);
    if (rc)
        return rc;
    if (issuer < 0)
        issuer = hg_current_device();
    if (issuer < 0)
        issuer = *dst_dev >= 0 ? *dst_dev : *src_dev;
    rc = check_access(func, "dst", issuer, *dst_dev);
    if (!rc)
        rc = check_access(func, "src", issuer, *src_dev);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind)
{
    aclError rc = hg_check_init("aclrtMemcpy");
    if (rc)
        return hg_rt_ret(rc);
    bool nothing;
    int dd, sd;
    rc = check_copy("aclrtMemcpy", dst, destMax, src, count, kind, -1, &nothing, &dd, &sd);
    if (!rc && !nothing) {
        uintptr_t held[2];
        if (!take_holds(dst, count, dd >= 0, src, count, sd >= 0, held)) {
            hg_set_error("aclrtMemcpy", "dst (%p) or src (%p) was freed by another thread during the call", dst, src);
            return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
        }
        if (HG_CHECKING()) {
            hg_chk_host_access("aclrtMemcpy", src, count, false, dd < 0);
            hg_chk_host_access("aclrtMemcpy", dst, count, true, false);
        }
        uint64_t t0 = HG_PROFILING() ? hg_now_ns() : 0;
        memmove(dst, src, count);
        drop_holds(held);
        if (t0) {
            char args[64];
            snprintf(args, sizeof args, "\"size\":%zu,\"kind\":%d", count, (int)kind); /* aclrtMemcpyKind */
            hg_prof_host_call("aclrtMemcpy", t0, hg_now_ns(), args);
        }
    }
    return hg_rt_ret(rc);
}

static aclError queue_task(const char *func, aclrtStream stream, hg_task *t, bool nothing)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    hg_stream *s = NULL;
    if (!rc)
        s = hg_stream_acquire_locked(stream, func, !nothing, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (s && !nothing)
        rc = hg_stream_push(s, t, func);
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

/* Device of the stream a task goes to (-1 with the text set when the handle is bad). */
static int stream_device(const char *func, aclrtStream stream, aclError *rc)
{
    return hg_stream_device(stream, func, rc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream)
{
    aclError rc = hg_check_init("aclrtMemcpyAsync");
    if (rc)
        return hg_rt_ret(rc);
    const char *func = "aclrtMemcpyAsync";
    int issuer = stream_device(func, stream, &rc);
    if (rc)
        return hg_rt_ret(rc);
    bool nothing;
    int dd = -1, sd = -1;
    rc = check_copy(func, dst, destMax, src, count, kind, issuer, &nothing, &dd, &sd);
    if (rc)
        return hg_rt_ret(rc);
    if (!nothing && dd < 0 && sd < 0) {
        /* run mode ACL_HOST (EP): the device's copy engines cannot do host-to-host */
        hg_set_error(func, "dst (%p) and src (%p) are both host memory: asynchronous host-to-host copies are not "
                     "supported (use aclrtMemcpy)", dst, src);
        return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = HG_TASK_MEMCPY;
    t.dst = dst;
    t.src = src;
    t.n = count;
    if (!HG_PROFILING())
        return queue_task("aclrtMemcpyAsync", stream, &t, nothing);
    static const char *const kinds[] = {"HOST_TO_HOST", "HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE",
                                        "DEFAULT"};
    char args[64];
    snprintf(args, sizeof args, "\"kind\":\"%s\"", (unsigned)kind < 5u ? kinds[kind] : "?");
    hg_prof_pending(NULL, args);
    rc = queue_task("aclrtMemcpyAsync", stream, &t, nothing);
    hg_prof_pending(NULL, NULL);
    return rc;
}

/* aclrtMemset takes device memory or acl host memory (aclrtMallocHost); the address
 * decides.  issuer as for check_copy. */
static aclError check_set(const char *func, void *devPtr, size_t maxCount, size_t count, int issuer, bool *nothing)
{
    *nothing = false;
    if (!devPtr) {
        hg_set_error(func, "devPtr is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count > maxCount) {
        hg_set_error(func, "count (%zu) exceeds maxCount (%zu)", count, maxCount);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (count == 0) {
        *nothing = true;
        return ACL_SUCCESS;
    }
    int dev;
    aclError rc = locate(func, "devPtr", devPtr, count, &dev);
    if (rc)
        return rc;
    if (dev < 0) {
        if (is_host_block_range(devPtr, count))
            return ACL_SUCCESS;
        hg_set_error(func, "devPtr (%p) with count (%zu) is neither inside a device allocation nor inside host "
                     "memory from aclrtMallocHost", devPtr, count);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (issuer < 0)
        issuer = hg_current_device();
    return check_access(func, "devPtr", issuer < 0 ? dev : issuer, dev);
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    aclError rc = hg_check_init("aclrtMemset");
    if (rc)
        return hg_rt_ret(rc);
    bool nothing;
    rc = check_set("aclrtMemset", devPtr, maxCount, count, -1, &nothing);
    if (!rc && !nothing) {
        uintptr_t held[2];
        if (!take_holds(devPtr, count, false, NULL, 0, false, held) || !held[0]) {
            if (held[0])
                drop_holds(held);
            hg_set_error("aclrtMemset", "devPtr (%p) was freed by another thread during the call", devPtr);
            return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
        }
        if (HG_CHECKING())
            hg_chk_host_access("aclrtMemset", devPtr, count, true, false);
        memset(devPtr, (unsigned char)value, count);
        drop_holds(held);
    }
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream)
{
    aclError rc = hg_check_init("aclrtMemsetAsync");
    if (rc)
        return hg_rt_ret(rc);
    int issuer = stream_device("aclrtMemsetAsync", stream, &rc);
    if (rc)
        return hg_rt_ret(rc);
    bool nothing;
    rc = check_set("aclrtMemsetAsync", devPtr, maxCount, count, issuer, &nothing);
    if (rc)
        return hg_rt_ret(rc);
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = HG_TASK_MEMSET;
    t.dst = devPtr;
    t.n = count;
    t.value = (unsigned char)value;
    return queue_task("aclrtMemsetAsync", stream, &t, nothing);
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_, size_t *total)
{
    const char *func = "aclrtGetMemInfo";
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && (!free_ || !total)) {
        hg_set_error(func, "%s is NULL", !free_ ? "free" : "total");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc && ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G)) {
        hg_set_error(func, "attr (%d) is not an aclrtMemAttr value", (int)attr);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    uint64_t capacity = hg_rt.mem_capacity;
    pthread_mutex_unlock(&hg_rt.mu);
    if (rc)
        return hg_rt_ret(rc);
    bool ddr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL ||
               attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL;
    if (ddr) {
        /* the emulated device has one memory, reported as HBM: no DDR */
        *total = 0;
        *free_ = 0;
        return ACL_SUCCESS;
    }
    /* every page size and the P2P pools draw on the same memory */
    pthread_mutex_lock(&g_mem_mu);
    uint64_t used = g_dev_used[dev];
    pthread_mutex_unlock(&g_mem_mu);
    *total = (size_t)capacity;
    *free_ = (size_t)(used <= capacity ? capacity - used : 0);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------- registry queries */

static int find_in(hg_blocks *b, uintptr_t a, uintptr_t *base, size_t *size, int *device)
{
    const hg_block *blk = block_holding(b, a, 0);
    if (!blk)
        return 0;
    *base = blk->base;
    *size = blk->size;
    *device = blk->device;
    return 1;
}

int hg_mem_find(const void *p, uintptr_t *base, size_t *size, int *device)
{
    uintptr_t a = (uintptr_t)p;
    int kind = HG_MEMORY_UNKNOWN;
    *base = 0;
    *size = 0;
    *device = -1;
    pthread_mutex_lock(&g_mem_mu);
    if (find_in(&g_dev_blocks, a, base, size, device))
        kind = HG_MEMORY_DEVICE;
    else if (find_in(&g_host_blocks, a, base, size, device))
        kind = HG_MEMORY_HOST;
    pthread_mutex_unlock(&g_mem_mu);
    if (kind == HG_MEMORY_HOST)
        *device = -1;
    return kind;
}

ACL_FUNC_VISIBILITY aclError hgQueryAllocation(const void *ptr, hgAllocation *info)
{
    if (!info) {
        hg_set_error("hgQueryAllocation", "info is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    uintptr_t base;
    size_t size;
    int device;
    info->kind = hg_mem_find(ptr, &base, &size, &device);
    info->deviceId = device;
    info->base = base;
    info->size = size;
    info->busy = 0;
    if (info->kind != HG_MEMORY_UNKNOWN) {
        pthread_mutex_lock(&g_mem_mu);
        hg_block *blk = block_holding(info->kind == HG_MEMORY_DEVICE ? &g_dev_blocks : &g_host_blocks, base, 1);
        info->busy = blk && blk->base == base ? blk->busy : 0;
        pthread_mutex_unlock(&g_mem_mu);
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ 2-D copies */

typedef struct {
    char *dst;
    const char *src;
    size_t dpitch, spitch, width, height;
} copy2d;

static void run_copy2d(const copy2d *c)
{
    for (size_t r = 0; r < c->height; ++r)
        memmove(c->dst + r * c->dpitch, c->src + r * c->spitch, c->width);
}

static void copy2d_task(void *arg)
{
    run_copy2d(arg);
    free(arg);
}

/* Checks of aclrtMemcpy2d(Async): H2D or D2H only; the device side's rows must lie inside
 * one device allocation. */
static aclError check_copy2d(const char *func, const copy2d *c, aclrtMemcpyKind kind, int issuer)
{
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST) {
        hg_set_error(func, "kind (%d) must be ACL_MEMCPY_HOST_TO_DEVICE or ACL_MEMCPY_DEVICE_TO_HOST", (int)kind);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!c->dst || !c->src) {
        hg_set_error(func, "%s is NULL", !c->dst ? "dst" : "src");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (c->width == 0 || c->height == 0) {
        hg_set_error(func, "width (%zu) and height (%zu) must be greater than 0", c->width, c->height);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (c->dpitch < c->width || c->spitch < c->width) {
        hg_set_error(func, "%s (%zu) is smaller than width (%zu)", c->dpitch < c->width ? "dpitch" : "spitch",
                     c->dpitch < c->width ? c->dpitch : c->spitch, c->width);
        return ACL_ERROR_INVALID_PARAM;
    }
    bool to_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE;
    size_t pitch = to_dev ? c->dpitch : c->spitch;
    if ((c->height - 1) > (SIZE_MAX - c->width) / pitch) {
        hg_set_error(func, "height (%zu) times the pitch (%zu) overflows", c->height, pitch);
        return ACL_ERROR_INVALID_PARAM;
    }
    size_t span = (c->height - 1) * pitch + c->width;
    const void *dev_side = to_dev ? (const void *)c->dst : (const void *)c->src;
    if (HG_CHECKING())
        hg_chk_bounds(func, to_dev ? "dst" : "src", dev_side, span);
    int dev = hg_mem_device_of(dev_side, span);
    if (dev < 0) {
        hg_set_error(func, "%s (%p) with %zu rows of pitch %zu is not inside a device allocation (kind %s)",
                     to_dev ? "dst" : "src", dev_side, c->height, pitch,
                     to_dev ? "ACL_MEMCPY_HOST_TO_DEVICE" : "ACL_MEMCPY_DEVICE_TO_HOST");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (issuer < 0)
        issuer = hg_current_device();
    return check_access(func, to_dev ? "dst" : "src", issuer < 0 ? dev : issuer, dev);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind)
{
    const char *func = "aclrtMemcpy2d";
    aclError rc = hg_check_init(func);
    if (rc)
        return hg_rt_ret(rc);
    copy2d c = {dst, src, dpitch, spitch, width, height};
    rc = check_copy2d(func, &c, kind, -1);
    if (!rc && HG_CHECKING()) {
        size_t span = (height - 1) * (kind == ACL_MEMCPY_HOST_TO_DEVICE ? dpitch : spitch) + width;
        hg_chk_host_access(func, kind == ACL_MEMCPY_HOST_TO_DEVICE ? dst : src, span,
                           kind == ACL_MEMCPY_HOST_TO_DEVICE, false);
    }
    if (!rc)
        run_copy2d(&c);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                size_t width, size_t height, aclrtMemcpyKind kind,
                                                aclrtStream stream)
{
    const char *func = "aclrtMemcpy2dAsync";
    aclError rc = hg_check_init(func);
    if (rc)
        return hg_rt_ret(rc);
    int issuer = stream_device(func, stream, &rc);
    if (rc)
        return hg_rt_ret(rc);
    copy2d c = {dst, src, dpitch, spitch, width, height};
    rc = check_copy2d(func, &c, kind, issuer);
    if (rc)
        return hg_rt_ret(rc);
    copy2d *heap = malloc(sizeof *heap);
    if (!heap) {
        hg_set_error(func, "out of host memory");
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    *heap = c;
    if (HG_CHECKING()) {
        bool to_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE;
        uintptr_t a = (uintptr_t)(to_dev ? dst : src);
        hg_access acc = {(const void *)a, a, a + (height - 1) * (to_dev ? dpitch : spitch) + width, to_dev, 0,
                         to_dev ? "dst" : "src"};
        hg_check_pending(&acc, 1);
    }
    rc = hg_stream_submit(stream, func, copy2d_task, heap);
    if (HG_CHECKING())
        hg_check_pending(NULL, 0);
    if (rc)
        free(heap);
    return hg_rt_ret(rc);
}

/* ------------------------------------------------------------------ stream memory operations */

static aclError check_word(const char *func, void *devAddr, int issuer)
{
    if (!devAddr) {
        hg_set_error(func, "devAddr is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if ((uintptr_t)devAddr % 8u != 0) {
        hg_set_error(func, "devAddr (%p) is not 8-byte aligned", devAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (HG_CHECKING())
        hg_chk_bounds(func, "devAddr", devAddr, sizeof(uint64_t));
    int dev = hg_mem_device_of(devAddr, sizeof(uint64_t));
    if (dev < 0) {
        hg_set_error(func, "devAddr (%p) is not 8 bytes inside a device allocation", devAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return check_access(func, "devAddr", issuer, dev);
}

static aclError queue_value_task(const char *func, void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream,
                                 hg_task_kind kind)
{
    aclError rc = hg_check_init(func);
    if (rc)
        return rc;
    int issuer = stream_device(func, stream, &rc);
    if (!rc)
        rc = check_word(func, devAddr, issuer);
    if (rc)
        return hg_rt_ret(rc);
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.word = devAddr;
    t.rec = value;
    t.value = (int)flag;
    return queue_task(func, stream, &t, false);
}

ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    if (flag != 0) {
        hg_set_error("aclrtValueWrite", "flag (%u) is reserved and must be 0", flag);
        return ACL_ERROR_INVALID_PARAM;
    }
    return queue_value_task("aclrtValueWrite", devAddr, value, flag, stream, HG_TASK_VALUE_WRITE);
}

ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
        hg_set_error("aclrtValueWait", "flag (%u) is not an ACL_STREAM_WAIT_VALUE_* condition (0..3)", flag);
        return ACL_ERROR_INVALID_PARAM;
    }
    return queue_value_task("aclrtValueWait", devAddr, value, flag, stream, HG_TASK_VALUE_WAIT);
}

/* ------------------------------------------------------------------ 32-bit sets, synced frees */

typedef struct {
    uint32_t *dst;
    uint32_t value;
    size_t n;
} set32;

static void run_set32(const set32 *s)
{
    for (size_t i = 0; i < s->n; ++i)
        s->dst[i] = s->value;
}

static void set32_task(void *arg)
{
    run_set32(arg);
    free(arg);
}

static aclError check_set32(const char *func, void *ptr, size_t memSize, size_t N, int issuer, bool *nothing)
{
    if (N > SIZE_MAX / 4) {
        hg_set_error(func, "N (%zu) words overflow a byte count", N);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (ptr && (uintptr_t)ptr % 4u != 0) {
        hg_set_error(func, "ptr (%p) is not 4-byte aligned", ptr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return check_set(func, ptr, memSize, N * 4u, issuer, nothing);
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    aclError rc = hg_check_init("aclrtMemsetD32");
    if (rc)
        return rc;
    bool nothing;
    rc = check_set32("aclrtMemsetD32", ptr, memSize, N, -1, &nothing);
    if (!rc && !nothing) {
        set32 s = {ptr, value, N};
        if (HG_CHECKING())
            hg_chk_host_access("aclrtMemsetD32", ptr, N * 4u, true, false);
        run_set32(&s);
    }
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                                                 aclrtStream stream)
{
    const char *func = "aclrtMemsetD32Async";
    aclError rc = hg_check_init(func);
    if (rc)
        return rc;
    int issuer = stream_device(func, stream, &rc);
    if (rc)
        return hg_rt_ret(rc);
    bool nothing;
    rc = check_set32(func, ptr, memSize, N, issuer, &nothing);
    if (rc || nothing)
        return hg_rt_ret(rc);
    set32 *s = malloc(sizeof *s);
    if (!s) {
        hg_set_error(func, "out of host memory");
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    s->dst = ptr;
    s->value = value;
    s->n = N;
    if (HG_CHECKING()) {
        uintptr_t a = (uintptr_t)ptr;
        hg_access acc = {ptr, a, a + N * 4u, 1, 1, "ptr"};
        hg_check_pending(&acc, 1);
    }
    rc = hg_stream_submit(stream, func, set32_task, s);
    if (HG_CHECKING())
        hg_check_pending(NULL, 0);
    if (rc)
        free(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr)
{
    aclError rc = aclrtSynchronizeDevice();
    return rc ? rc : aclrtFree(devPtr);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
    aclError rc = aclrtSynchronizeDevice();
    return rc ? rc : aclrtFreeHost(hostPtr);
}
