/* External allocators (acl_rt_allocator.h): a description of the caller's allocator -- its object
 * and its alloc, free, alloc-advise and address-of-block callbacks -- and a registry of one
 * description per stream.  As in CANN's runtime, the runtime itself calls none of the callbacks:
 * the libraries that allocate for work launched on a stream (workspace, intermediate buffers)
 * look the stream's allocator up with aclrtAllocatorGetByStream and call them.  Registering
 * copies the callbacks (later changes to the description do not reach the registry) and keeps
 * the description's handle, which aclrtAllocatorGetByStream gives back. */
#include <stdlib.h>

#include "rt_internal.h"

typedef struct hg_allocator_desc {
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free_fn;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc addr;
} hg_allocator_desc;

typedef struct hg_allocator_entry {
    aclrtStream stream;
    aclrtAllocatorDesc handle; /* the caller's description */
    hg_allocator_desc copy;    /* its callbacks when registered */
} hg_allocator_entry;

static pthread_mutex_t g_alloc_mu = PTHREAD_MUTEX_INITIALIZER;
static hg_allocator_entry *g_entries;
static size_t g_nentries, g_cap;

ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    hg_allocator_desc *d = calloc(1, sizeof *d);
    if (!d)
        hg_set_error("aclrtAllocatorCreateDesc", "out of host memory");
    return d;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    if (!allocatorDesc) {
        hg_set_error("aclrtAllocatorDestroyDesc", "allocatorDesc is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    free(allocatorDesc);
    return ACL_SUCCESS;
}

#define HG_DESC_SETTER(name, field, type, arg)                                                    \
    ACL_FUNC_VISIBILITY aclError name(aclrtAllocatorDesc allocatorDesc, type arg)                 \
    {                                                                                              \
        if (!allocatorDesc || !arg) {                                                              \
            hg_set_error(#name, "%s is NULL", !allocatorDesc ? "allocatorDesc" : #arg);             \
            return ACL_ERROR_INVALID_PARAM;                                                        \
        }                                                                                          \
        ((hg_allocator_desc *)allocatorDesc)->field = arg;                                         \
        return ACL_SUCCESS;                                                                        \
    }

HG_DESC_SETTER(aclrtAllocatorSetObjToDesc, obj, aclrtAllocator, allocator)
HG_DESC_SETTER(aclrtAllocatorSetAllocFuncToDesc, alloc, aclrtAllocatorAllocFunc, func)
HG_DESC_SETTER(aclrtAllocatorSetFreeFuncToDesc, free_fn, aclrtAllocatorFreeFunc, func)
HG_DESC_SETTER(aclrtAllocatorSetAllocAdviseFuncToDesc, advise, aclrtAllocatorAllocAdviseFunc, func)
HG_DESC_SETTER(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, addr, aclrtAllocatorGetAddrFromBlockFunc, func)

static hg_allocator_entry *find_entry(aclrtStream stream)
{
    for (size_t i = 0; i < g_nentries; ++i)
        if (g_entries[i].stream == stream)
            return &g_entries[i];
    return NULL;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    const char *func = "aclrtAllocatorRegister";
    const hg_allocator_desc *d = allocatorDesc;
    const char *missing = !stream ? "stream" : !d ? "allocatorDesc" : !d->obj ? "allocatorDesc->obj"
                        : !d->alloc ? "allocatorDesc->allocFunc" : !d->free_fn ? "allocatorDesc->freeFunc"
                        : !d->addr ? "allocatorDesc->getAddrFromBlockFunc" : NULL;
    if (missing) {
        hg_set_error(func, "%s is NULL", missing);
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_alloc_mu);
    aclError rc = ACL_SUCCESS;
    hg_allocator_entry *e = find_entry(stream);
    if (!e) {
        if (g_nentries == g_cap) {
            size_t cap = g_cap ? 2 * g_cap : 8;
            hg_allocator_entry *bigger = realloc(g_entries, cap * sizeof *bigger);
            if (bigger) {
                g_entries = bigger;
                g_cap = cap;
            }
        }
        if (g_nentries < g_cap)
            e = &g_entries[g_nentries++];
    }
    if (e) {
        e->stream = stream;
        e->handle = allocatorDesc;
        e->copy = *d;
    } else {
        hg_set_error(func, "out of host memory");
        rc = ACL_ERROR_BAD_ALLOC;
    }
    pthread_mutex_unlock(&g_alloc_mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                       aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                       aclrtAllocatorFreeFunc *freeFunc,
                                                       aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                       aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    const char *func = "aclrtAllocatorGetByStream";
    if (!allocatorDesc || !stream) {
        hg_set_error(func, "%s is NULL", !allocatorDesc ? "allocatorDesc" : "stream");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_alloc_mu);
    const hg_allocator_entry *e = find_entry(stream);
    if (e) {
        *allocatorDesc = e->handle;
        if (allocator)
            *allocator = e->copy.obj;
        if (allocFunc)
            *allocFunc = e->copy.alloc;
        if (freeFunc)
            *freeFunc = e->copy.free_fn;
        if (allocAdviseFunc)
            *allocAdviseFunc = e->copy.advise;
        if (getAddrFromBlockFunc)
            *getAddrFromBlockFunc = e->copy.addr;
    }
    pthread_mutex_unlock(&g_alloc_mu);
    if (!e) {
        hg_set_error(func, "stream is not registered with any allocator (aclrtAllocatorRegister)");
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    if (!stream) {
        hg_set_error("aclrtAllocatorUnregister", "stream is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_alloc_mu);
    hg_allocator_entry *e = find_entry(stream);
    if (e)
        *e = g_entries[--g_nentries];
    pthread_mutex_unlock(&g_alloc_mu);
    return ACL_SUCCESS;
}
