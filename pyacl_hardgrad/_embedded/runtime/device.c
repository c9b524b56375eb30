/* Devices: per-thread current device, process-wide reference counts. */
#include <stdlib.h>

#include "rt_internal.h"

/* The calling thread's binding; valid only while epoch and the device's generation
 * still match (aclFinalize or the device closing invalidates every thread at once). */
static _Thread_local struct {
    uint64_t epoch;
    uint64_t gen;
    int dev;
    uintptr_t ctx;
} tls_cur = {0, 0, -1, 0};

int hg_current_device_locked(void)
{
    if (hg_rt.state != 1 || tls_cur.epoch != hg_rt.epoch || tls_cur.dev < 0 ||
        tls_cur.dev >= hg_rt.device_count)
        return -1;
    const hg_device *d = &hg_rt.dev[tls_cur.dev];
    if (d->refcount <= 0 || d->gen != tls_cur.gen)
        return -1;
    return tls_cur.dev;
}

aclError hg_require_device_locked(const char *func, int *dev)
{
    int d = hg_current_device_locked();
    if (d < 0) {
        hg_set_error(func, "no device is set on this thread (call aclrtSetDevice first)");
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *dev = d;
    return ACL_SUCCESS;
}

void hg_tls_bind_locked(int dev, uintptr_t ctx)
{
    tls_cur.epoch = hg_rt.epoch;
    tls_cur.gen = hg_rt.dev[dev].gen;
    tls_cur.dev = dev;
    tls_cur.ctx = ctx;
}

void hg_tls_unbind(void)
{
    tls_cur.dev = -1;
    tls_cur.ctx = 0;
}

uintptr_t hg_tls_ctx(void)
{
    return tls_cur.ctx;
}

aclError hg_device_retain_locked(int dev, const char *func)
{
    hg_device *d = &hg_rt.dev[dev];
    if (d->refcount == 0) {
        hg_context *c = malloc(sizeof *c);
        uintptr_t h = c ? hg_table_add(&hg_rt.contexts, c) : 0;
        if (!h) {
            free(c);
            hg_set_error(func, "out of host memory opening device %d", dev);
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        c->device = dev;
        c->primary = true;
        d->primary_ctx = h;
    }
    d->refcount++;
    return ACL_SUCCESS;
}

static void close_device_locked(int dev, hg_stream **dead)
{
    hg_device *d = &hg_rt.dev[dev];
    d->refcount = 0;
    d->gen++;
    free(hg_table_remove(&hg_rt.contexts, d->primary_ctx));
    d->primary_ctx = 0;
    if (d->default_stream) {
        d->default_stream->dead_next = *dead;
        *dead = d->default_stream;
        d->default_stream = NULL;
    }
    for (uint32_t i = 0; i < hg_rt.streams.cap; ++i) {
        uintptr_t h = hg_table_handle_at(&hg_rt.streams, i);
        hg_stream *s = h ? hg_table_get(&hg_rt.streams, h) : NULL;
        if (!s || s->device != dev)
            continue;
        hg_table_remove(&hg_rt.streams, h);
        hg_rt_count_add(HG_RTC_STREAMS, -1);
        s->dead_next = *dead;
        *dead = s;
    }
}

void hg_device_release_locked(int dev, hg_stream **dead)
{
    hg_device *d = &hg_rt.dev[dev];
    if (d->refcount <= 0)
        return;
    if (--d->refcount == 0) {
        d->refcount = 1;
        close_device_locked(dev, dead);
    }
}

void hg_device_close_all_locked(hg_stream **dead)
{
    for (int i = 0; i < hg_rt.device_count; ++i)
        if (hg_rt.dev[i].refcount > 0)
            close_device_locked(i, dead);
}

static aclError check_device_id(const char *func, int32_t deviceId)
{
    if (deviceId < 0 || deviceId >= hg_rt.device_count) {
        hg_set_error(func, "deviceId (%d) is out of range [0, %d)", (int)deviceId, hg_rt.device_count);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtSetDevice");
    if (!rc)
        rc = check_device_id("aclrtSetDevice", deviceId);
    if (!rc)
        rc = hg_device_retain_locked(deviceId, "aclrtSetDevice");
    if (!rc)
        hg_tls_bind_locked(deviceId, hg_rt.dev[deviceId].primary_ctx);
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId)
{
    hg_stream *dead = NULL;
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtResetDevice");
    if (!rc)
        rc = check_device_id("aclrtResetDevice", deviceId);
    if (!rc)
        hg_device_release_locked(deviceId, &dead); /* a device not set is a no-op */
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_shutdown_list(dead);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtGetDevice");
    if (!rc && !deviceId) {
        hg_set_error("aclrtGetDevice", "deviceId is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked("aclrtGetDevice", &dev);
    if (!rc)
        *deviceId = dev;
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtGetDeviceCount");
    if (!rc && !count) {
        hg_set_error("aclrtGetDeviceCount", "count is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc)
        *count = (uint32_t)hg_rt.device_count;
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_check_init_locked("aclrtSynchronizeDevice");
    if (!rc)
        rc = hg_require_device_locked("aclrtSynchronizeDevice", &dev);
    hg_stream **list = NULL;
    size_t n = 0;
    if (!rc) {
        list = malloc((hg_rt.streams.cap + 1u) * sizeof *list);
        if (!list) {
            hg_set_error("aclrtSynchronizeDevice", "out of host memory");
            rc = ACL_ERROR_RT_INTERNAL_ERROR;
        }
    }
    if (!rc) {
        hg_stream *d = hg_rt.dev[dev].default_stream;
        if (d) {
            atomic_fetch_add(&d->refs, 1);
            list[n++] = d;
        }
        for (uint32_t i = 0; i < hg_rt.streams.cap; ++i) {
            uintptr_t h = hg_table_handle_at(&hg_rt.streams, i);
            hg_stream *s = h ? hg_table_get(&hg_rt.streams, h) : NULL;
            if (s && s->device == dev) {
                atomic_fetch_add(&s->refs, 1);
                list[n++] = s;
            }
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    for (size_t i = 0; i < n; ++i) {
        hg_stream_sync(list[i]);
        hg_stream_release(list[i]);
    }
    free(list);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    aclError rc = hg_check_init("aclrtGetRunMode");
    if (rc)
        return rc;
    if (!runMode) {
        hg_set_error("aclrtGetRunMode", "runMode is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void)
{
    if (!atomic_load(&hg_rt_live)) {
        hg_set_error("aclrtGetSocName", "the runtime is not initialised (call aclInit first)");
        return NULL;
    }
    return hg_rt.soc_name;
}

/* ------------------------------------------------------------------ contexts */

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtCreateContext");
    if (!rc && !context) {
        hg_set_error("aclrtCreateContext", "context is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc)
        rc = check_device_id("aclrtCreateContext", deviceId);
    if (!rc)
        rc = hg_device_retain_locked(deviceId, "aclrtCreateContext");
    if (!rc) {
        hg_context *c = malloc(sizeof *c);
        uintptr_t h = c ? hg_table_add(&hg_rt.contexts, c) : 0;
        if (!h) {
            free(c);
            hg_stream *dead = NULL;
            hg_device_release_locked(deviceId, &dead);
            pthread_mutex_unlock(&hg_rt.mu);
            hg_stream_shutdown_list(dead);
            hg_set_error("aclrtCreateContext", "out of host memory");
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        c->device = deviceId;
        c->primary = false;
        hg_rt_count_add(HG_RTC_CONTEXTS, 1);
        hg_tls_bind_locked(deviceId, h);
        *context = (aclrtContext)h;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context)
{
    hg_stream *dead = NULL;
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtDestroyContext");
    if (!rc && !context) {
        hg_set_error("aclrtDestroyContext", "context is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    hg_context *c = NULL;
    if (!rc) {
        c = hg_table_get(&hg_rt.contexts, (uintptr_t)context);
        if (!c) {
            hg_set_error("aclrtDestroyContext", "context (%p) is not a live context", context);
            rc = ACL_ERROR_RT_INVALID_HANDLE;
        } else if (c->primary) {
            hg_set_error("aclrtDestroyContext",
                         "context (%p) is the default context of device %d; use aclrtResetDevice", context,
                         c->device);
            rc = ACL_ERROR_INVALID_PARAM;
        }
    }
    if (!rc) {
        hg_table_remove(&hg_rt.contexts, (uintptr_t)context);
        if (hg_tls_ctx() == (uintptr_t)context)
            hg_tls_unbind();
        hg_device_release_locked(c->device, &dead);
        hg_rt_count_add(HG_RTC_CONTEXTS, -1);
        free(c);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_shutdown_list(dead);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtSetCurrentContext");
    if (!rc && !context) {
        hg_set_error("aclrtSetCurrentContext", "context is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc) {
        hg_context *c = hg_table_get(&hg_rt.contexts, (uintptr_t)context);
        if (!c) {
            hg_set_error("aclrtSetCurrentContext", "context (%p) is not a live context", context);
            rc = ACL_ERROR_RT_INVALID_HANDLE;
        } else {
            hg_tls_bind_locked(c->device, (uintptr_t)context);
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtGetCurrentContext");
    if (!rc && !context) {
        hg_set_error("aclrtGetCurrentContext", "context is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked("aclrtGetCurrentContext", &dev);
    if (!rc) {
        uintptr_t h = hg_tls_ctx();
        if (!h || !hg_table_get(&hg_rt.contexts, h))
            h = hg_rt.dev[dev].primary_ctx;
        *context = (aclrtContext)h;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}
