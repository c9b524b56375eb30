/* Stream-ordered memory pools (acl_rt_memory_soma.h).  A pool hands out device memory of its
 * device (aclrtMemPoolMallocAsync: usable by the stream's later work, and by the host at once,
 * since the embedded device's memory is the host's); aclrtMemPoolFreeAsync gives a block back
 * once the stream's earlier work is done (the call waits for that work, then frees).  A pool
 * keeps no freed memory for reuse, so its reserved memory is its used memory and
 * aclrtMemPoolTrimTo has nothing to release; maxSize (0: no limit) caps what it hands out.
 *
 * Attributes: the three reuse switches (int32_t, 0 or 1) and ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD
 * (uint64_t) are kept and reported; RESERVED / USED _MEM_CURRENT and _HIGH (uint64_t) are read
 * only, except that setting a _HIGH to 0 resets it to the current value.  Argument checks follow
 * CANN's: NULL pointers, a stream of NULL for MallocAsync, a props whose allocType is not
 * PINNED or location type not DEVICE, or non-zero reserved bytes -> ACL_ERROR_INVALID_PARAM; a
 * handle that is no live pool, a pointer no pool gave out -> ACL_ERROR_RT_PARAM_INVALID. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_rt_memory_soma.h"
#include "rt_internal.h"

typedef struct hg_pool_block {
    void *ptr;
    size_t size;
} hg_pool_block;

typedef struct hg_mempool {
    struct hg_mempool *next;
    int device;
    size_t max_size;
    uint64_t threshold;
    int32_t reuse[3];
    uint64_t used, used_high, reserved_high;
    hg_pool_block *blocks;
    size_t nblocks, cap;
} hg_mempool;

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static hg_mempool *g_pools;

static hg_mempool *pool_find_locked(const void *handle)
{
    for (hg_mempool *p = g_pools; p; p = p->next)
        if (p == handle)
            return p;
    return NULL;
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps)
{
    const char *func = "aclrtMemPoolCreate";
    if (!memPool || !poolProps) {
        hg_set_error(func, "%s is NULL", !memPool ? "memPool" : "poolProps");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (poolProps->allocType != ACL_MEM_ALLOCATION_TYPE_PINNED) {
        hg_set_error(func, "poolProps->allocType (%d) must be ACL_MEM_ALLOCATION_TYPE_PINNED (0)",
                     (int)poolProps->allocType);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (poolProps->location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
        hg_set_error(func, "poolProps->location.type (%d) must be ACL_MEM_LOCATION_TYPE_DEVICE (1)",
                     (int)poolProps->location.type);
        return ACL_ERROR_INVALID_PARAM;
    }
    for (size_t i = 0; i < sizeof poolProps->reserved; ++i) {
        if (poolProps->reserved[i]) {
            hg_set_error(func, "poolProps->reserved is reserved and must be all zero");
            return ACL_ERROR_INVALID_PARAM;
        }
    }
    aclError rc = hg_check_init(func);
    if (rc)
        return hg_rt_ret(rc);
    if (poolProps->location.id >= (uint32_t)hg_rt.device_count) {
        hg_set_error(func, "poolProps->location.id (%u) is out of range [0, %d)", (unsigned)poolProps->location.id,
                     hg_rt.device_count);
        return hg_rt_ret(ACL_ERROR_RT_INVALID_DEVICEID);
    }
    hg_mempool *p = calloc(1, sizeof *p);
    if (!p) {
        hg_set_error(func, "out of host memory");
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    p->device = (int)poolProps->location.id;
    p->max_size = poolProps->maxSize;
    pthread_mutex_lock(&g_pool_mu);
    p->next = g_pools;
    g_pools = p;
    pthread_mutex_unlock(&g_pool_mu);
    *memPool = p;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolDestroy(const aclrtMemPool memPool)
{
    const char *func = "aclrtMemPoolDestroy";
    if (!memPool) {
        hg_set_error(func, "memPool is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_pool_mu);
    hg_mempool **at = &g_pools;
    while (*at && *at != memPool)
        at = &(*at)->next;
    hg_mempool *p = *at;
    if (p)
        *at = p->next;
    pthread_mutex_unlock(&g_pool_mu);
    if (!p) {
        hg_set_error(func, "memPool (%p) is not a live memory pool", memPool);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    for (size_t i = 0; i < p->nblocks; ++i) /* what is still out goes with the pool */
        (void)aclrtFree(p->blocks[i].ptr);
    free(p->blocks);
    free(p);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool, aclrtStream stream)
{
    const char *func = "aclrtMemPoolMallocAsync";
    if (!ptr || !memPool || !stream) {
        hg_set_error(func, "%s is NULL", !ptr ? "ptr" : !memPool ? "memPool" : "stream");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (size == 0)
        return ACL_SUCCESS;
    aclError rc = ACL_SUCCESS;
    int dev = hg_stream_device(stream, func, &rc);
    if (rc)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&g_pool_mu);
    hg_mempool *p = pool_find_locked(memPool);
    if (!p) {
        hg_set_error(func, "memPool (%p) is not a live memory pool", memPool);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (p->device != dev) {
        hg_set_error(func, "memPool holds memory of device %d but the stream runs on device %d", p->device, dev);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (p->max_size && (size > p->max_size || p->used > p->max_size - size)) {
        hg_set_error(func, "size (%zu) exceeds what memPool may still hand out (maxSize %zu, %llu in use)", size,
                     p->max_size, (unsigned long long)p->used);
        rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
    } else if (p->nblocks == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        hg_pool_block *bigger = realloc(p->blocks, cap * sizeof *bigger);
        if (bigger) {
            p->blocks = bigger;
            p->cap = cap;
        } else {
            hg_set_error(func, "out of host memory");
            rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    }
    void *mem = NULL;
    if (!rc)
        rc = aclrtMalloc(&mem, size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (!rc && hg_memory_device(mem, size) != p->device) {
        (void)aclrtFree(mem);
        hg_set_error(func, "the calling thread's current device is not memPool's device %d (aclrtSetDevice)",
                     p->device);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!rc) {
        p->blocks[p->nblocks++] = (hg_pool_block){mem, size};
        p->used += size;
        if (p->used > p->used_high)
            p->used_high = p->used;
        if (p->used > p->reserved_high)
            p->reserved_high = p->used;
        *ptr = mem;
    }
    pthread_mutex_unlock(&g_pool_mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream)
{
    const char *func = "aclrtMemPoolFreeAsync";
    if (!ptr) {
        hg_set_error(func, "ptr is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc = ACL_SUCCESS;
    (void)hg_stream_device(stream, func, &rc);
    if (rc)
        return hg_rt_ret(rc);
    /* the block leaves its pool's books now (so it cannot be freed twice), memory after the
     * stream's earlier work */
    pthread_mutex_lock(&g_pool_mu);
    hg_mempool *owner = NULL;
    size_t size = 0;
    for (hg_mempool *p = g_pools; p && !owner; p = p->next) {
        for (size_t i = 0; i < p->nblocks; ++i) {
            if (p->blocks[i].ptr == ptr) {
                owner = p;
                size = p->blocks[i].size;
                p->blocks[i] = p->blocks[--p->nblocks];
                p->used -= size;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_pool_mu);
    if (!owner) {
        hg_set_error(func, "ptr (%p) was not allocated from a memory pool (aclrtMemPoolMallocAsync), or is freed",
                     ptr);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    rc = aclrtSynchronizeStream(stream);
    aclError frc = aclrtFree(ptr);
    return rc ? rc : frc;
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep; /* nothing freed is kept: nothing to trim */
    const char *func = "aclrtMemPoolTrimTo";
    if (!memPool) {
        hg_set_error(func, "memPool is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_pool_mu);
    bool live = pool_find_locked(memPool) != NULL;
    pthread_mutex_unlock(&g_pool_mu);
    if (!live) {
        hg_set_error(func, "memPool (%p) is not a live memory pool", memPool);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    return ACL_SUCCESS;
}

static aclError pool_attr(const char *func, aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value, bool set)
{
    if (!memPool || !value) {
        hg_set_error(func, "%s is NULL", !memPool ? "memPool" : "value");
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_pool_mu);
    hg_mempool *p = pool_find_locked(memPool);
    if (!p) {
        hg_set_error(func, "memPool (%p) is not a live memory pool", memPool);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else {
        switch (attr) {
        case ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC:
        case ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES: {
            int32_t *slot = &p->reuse[attr - ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES];
            if (!set) {
                *(int32_t *)value = *slot;
            } else if (*(int32_t *)value != 0 && *(int32_t *)value != 1) {
                hg_set_error(func, "the value (%d) of a reuse attribute must be 0 or 1", (int)*(int32_t *)value);
                rc = ACL_ERROR_RT_PARAM_INVALID;
            } else {
                *slot = *(int32_t *)value;
            }
            break;
        }
        case ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD:
            if (set)
                p->threshold = *(uint64_t *)value;
            else
                *(uint64_t *)value = p->threshold;
            break;
        case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT:
        case ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT:
            if (set) {
                hg_set_error(func, "attr (%d) can only be read", (int)attr);
                rc = ACL_ERROR_RT_PARAM_INVALID;
            } else {
                *(uint64_t *)value = p->used; /* nothing is kept past its free: reserved is used */
            }
            break;
        case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH:
        case ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH: {
            uint64_t *high = attr == ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH ? &p->used_high : &p->reserved_high;
            if (!set) {
                *(uint64_t *)value = *high;
            } else if (*(uint64_t *)value != 0) {
                hg_set_error(func, "attr (%d) can only be reset, to 0", (int)attr);
                rc = ACL_ERROR_RT_PARAM_INVALID;
            } else {
                *high = p->used;
            }
            break;
        }
        default:
            hg_set_error(func, "attr (%d) is not an aclrtMemPoolAttr value (1..8)", (int)attr);
            rc = ACL_ERROR_RT_PARAM_INVALID;
            break;
        }
    }
    pthread_mutex_unlock(&g_pool_mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
    return pool_attr("aclrtMemPoolSetAttr", memPool, attr, value, true);
}

ACL_FUNC_VISIBILITY aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
    return pool_attr("aclrtMemPoolGetAttr", memPool, attr, value, false);
}
