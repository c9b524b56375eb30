/* Device and host memory: allocation with per-device capacity accounting, and the
 * registries that let copies prove their device pointers are live allocations. */
#include <stdlib.h>
#include <string.h>

#include "pyacl_hardgrad/embedded.h"
#include "rt_internal.h"

#define DEVICE_ALIGN 512u

typedef struct {
    uintptr_t base;
    size_t size;
    int device;
} hg_block;

typedef struct {
    hg_block *v;
    size_t n, cap;
} hg_blocks;

static pthread_mutex_t g_mem_mu = PTHREAD_MUTEX_INITIALIZER;
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

static void blocks_erase(hg_blocks *b, size_t i)
{
    memmove(&b->v[i], &b->v[i + 1], (b->n - i - 1) * sizeof *b->v);
    b->n--;
}

/* Is [p, p + n) inside one live device allocation? (n == 0 checks p alone) */
static bool is_device_range(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&g_mem_mu);
    size_t i = upper_bound(&g_dev_blocks, a);
    bool ok = false;
    if (i > 0) {
        const hg_block *blk = &g_dev_blocks.v[i - 1];
        size_t off = a - blk->base;
        ok = off < blk->size && n <= blk->size - off;
    }
    pthread_mutex_unlock(&g_mem_mu);
    return ok;
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

static void *alloc_aligned(size_t size)
{
    if (size > SIZE_MAX - DEVICE_ALIGN)
        return NULL;
    size_t rounded = (size + DEVICE_ALIGN - 1) & ~(size_t)(DEVICE_ALIGN - 1);
    return aligned_alloc(DEVICE_ALIGN, rounded);
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    const char *func = "aclrtMalloc";
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
    *devPtr = p;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr)
{
    aclError rc = hg_check_init("aclrtFree");
    if (rc)
        return rc;
    if (!devPtr) {
        hg_set_error("aclrtFree", "devPtr is NULL");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_lock(&g_mem_mu);
    size_t i = blocks_find_exact(&g_dev_blocks, (uintptr_t)devPtr);
    size_t size = 0;
    if (i != (size_t)-1) {
        size = g_dev_blocks.v[i].size;
        int dev = g_dev_blocks.v[i].device;
        g_dev_used[dev] -= size;
        blocks_erase(&g_dev_blocks, i);
    }
    pthread_mutex_unlock(&g_mem_mu);
    if (i == (size_t)-1) {
        hg_set_error("aclrtFree", "devPtr (%p) was not returned by aclrtMalloc, or was already freed", devPtr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    free(devPtr);
    hg_rt_count_add(HG_RTC_DEV_ALLOCS, -1);
    hg_rt_count_add(HG_RTC_DEV_BYTES, -(int64_t)size);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    aclError rc = hg_check_init("aclrtMallocHost");
    if (rc)
        return rc;
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
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    hg_rt_count_add(HG_RTC_HOST_ALLOCS, 1);
    *hostPtr = p;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr)
{
    aclError rc = hg_check_init("aclrtFreeHost");
    if (rc)
        return rc;
    if (!hostPtr) {
        hg_set_error("aclrtFreeHost", "hostPtr is NULL");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    pthread_mutex_lock(&g_mem_mu);
    size_t i = blocks_find_exact(&g_host_blocks, (uintptr_t)hostPtr);
    if (i != (size_t)-1)
        blocks_erase(&g_host_blocks, i);
    pthread_mutex_unlock(&g_mem_mu);
    if (i == (size_t)-1) {
        hg_set_error("aclrtFreeHost", "hostPtr (%p) was not returned by aclrtMallocHost, or was already freed",
                     hostPtr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    free(hostPtr);
    hg_rt_count_add(HG_RTC_HOST_ALLOCS, -1);
    return ACL_SUCCESS;
}

static const char *kind_name(int kind)
{
    static const char *const names[] = {"ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE",
                                        "ACL_MEMCPY_DEVICE_TO_HOST", "ACL_MEMCPY_DEVICE_TO_DEVICE",
                                        "ACL_MEMCPY_DEFAULT"};
    return kind >= 0 && kind <= 4 ? names[kind] : "unknown";
}

/* Checks shared by aclrtMemcpy and aclrtMemcpyAsync.  *nothing is set when the copy
 * is a valid no-op (count 0). */
static aclError check_copy(const char *func, void *dst, size_t destMax, const void *src, size_t count,
                           aclrtMemcpyKind kind, bool *nothing)
{
    *nothing = false;
    if ((int)kind < ACL_MEMCPY_HOST_TO_HOST || (int)kind > ACL_MEMCPY_DEFAULT) {
        hg_set_error(func, "kind (%d) is not an aclrtMemcpyKind value (0..4)", (int)kind);
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
    bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    if (dst_dev && !is_device_range(dst, count)) {
        hg_set_error(func, "dst (%p) with count (%zu) is not inside a live device allocation (kind %s)", dst, count,
                     kind_name(kind));
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (src_dev && !is_device_range(src, count)) {
        hg_set_error(func, "src (%p) with count (%zu) is not inside a live device allocation (kind %s)", src, count,
                     kind_name(kind));
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind)
{
    aclError rc = hg_check_init("aclrtMemcpy");
    if (rc)
        return rc;
    bool nothing;
    rc = check_copy("aclrtMemcpy", dst, destMax, src, count, kind, &nothing);
    if (!rc && !nothing)
        memmove(dst, src, count);
    return rc;
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
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream)
{
    aclError rc = hg_check_init("aclrtMemcpyAsync");
    if (rc)
        return rc;
    bool nothing;
    rc = check_copy("aclrtMemcpyAsync", dst, destMax, src, count, kind, &nothing);
    if (rc)
        return rc;
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = HG_TASK_MEMCPY;
    t.dst = dst;
    t.src = src;
    t.n = count;
    return queue_task("aclrtMemcpyAsync", stream, &t, nothing);
}

static aclError check_set(const char *func, void *devPtr, size_t maxCount, size_t count, bool *nothing)
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
    if (!is_device_range(devPtr, count)) {
        hg_set_error(func, "devPtr (%p) with count (%zu) is not inside a live device allocation", devPtr, count);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    aclError rc = hg_check_init("aclrtMemset");
    if (rc)
        return rc;
    bool nothing;
    rc = check_set("aclrtMemset", devPtr, maxCount, count, &nothing);
    if (!rc && !nothing)
        memset(devPtr, (unsigned char)value, count);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream)
{
    aclError rc = hg_check_init("aclrtMemsetAsync");
    if (rc)
        return rc;
    bool nothing;
    rc = check_set("aclrtMemsetAsync", devPtr, maxCount, count, &nothing);
    if (rc)
        return rc;
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
    if (!rc && ((int)attr < ACL_DDR_MEM || (int)attr > ACL_HBM_MEM_P2P_NORMAL)) {
        hg_set_error(func, "attr (%d) is not an aclrtMemAttr value", (int)attr);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    uint64_t capacity = hg_rt.mem_capacity;
    pthread_mutex_unlock(&hg_rt.mu);
    if (rc)
        return rc;
    pthread_mutex_lock(&g_mem_mu);
    uint64_t used = g_dev_used[dev];
    pthread_mutex_unlock(&g_mem_mu);
    *total = (size_t)capacity;
    *free_ = (size_t)(used <= capacity ? capacity - used : 0);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------- registry queries */

static int find_in(const hg_blocks *b, uintptr_t a, uintptr_t *base, size_t *size, int *device)
{
    size_t i = upper_bound(b, a);
    if (i == 0)
        return 0;
    const hg_block *blk = &b->v[i - 1];
    if (a - blk->base >= blk->size)
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
    return ACL_SUCCESS;
}
