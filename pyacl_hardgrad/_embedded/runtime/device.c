/* Devices: per-thread current device, process-wide reference counts. */
#include <stdlib.h>
#include <string.h>

#include "device_ext.h"
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

HG_INTERNAL int hg_current_device(void)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = hg_current_device_locked();
    pthread_mutex_unlock(&hg_rt.mu);
    return dev;
}

aclError hg_require_device_locked(const char *func, int *dev)
{
    int d = hg_current_device_locked();
    if (d < 0) {
        /* the two queries of the current device answer "none" as their result, not a misuse */
        if (HG_CHECKING() && strcmp(func, "aclrtGetDevice") != 0 && strcmp(func, "aclrtGetCurrentContext") != 0) {
            /* the thread's device was set in this aclInit span but has been reset since */
            bool reset = hg_rt.state == 1 && tls_cur.epoch == hg_rt.epoch && tls_cur.dev >= 0 &&
                         tls_cur.dev < hg_rt.device_count;
            hg_chk_no_device(func, reset ? tls_cur.dev : -1);
        }
        hg_set_error(func, "no device is set on this thread (call aclrtSetDevice first)");
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *dev = d;
    return ACL_SUCCESS;
}

aclError hg_enter_locked(const char *func, const void *out, const char *out_name, int *dev)
{
    aclError rc = hg_check_init_locked(func);
    if (!rc && out_name && !out) {
        hg_set_error(func, "%s is NULL", out_name);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc && dev)
        rc = hg_require_device_locked(func, dev);
    return rc;
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
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, func, "device %d opened (default context 0x%llx)", dev,
               (unsigned long long)h);
    }
    d->refcount++;
    return ACL_SUCCESS;
}

static void close_device_locked(int dev, hg_stream **dead, const char *func)
{
    hg_device *d = &hg_rt.dev[dev];
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, NULL, "device %d closed (its default stream and context released)", dev);
    if (HG_CHECKING()) {
        hg_chk_device_closed(dev, func);
        hg_events_device_closed_locked(dev);
    }
    d->refcount = 0;
    d->gen++;
    d->peer_mask = 0;
    d->res_limit[0] = d->res_limit[1] = 0;
    d->sys_opt_set = 0;
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
        if (HG_CHECKING())
            hg_chk_handle_reset(h, dev);
        s->dead_next = *dead;
        *dead = s;
    }
}

void hg_device_release_locked(int dev, hg_stream **dead, const char *func)
{
    hg_device *d = &hg_rt.dev[dev];
    if (d->refcount <= 0)
        return;
    if (--d->refcount == 0) {
        d->refcount = 1;
        close_device_locked(dev, dead, func);
    }
}

void hg_device_close_all_locked(hg_stream **dead)
{
    for (int i = 0; i < hg_rt.device_count; ++i)
        if (hg_rt.dev[i].refcount > 0)
            close_device_locked(i, dead, "aclFinalize");
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
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId)
{
    hg_stream *dead = NULL;
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtResetDevice");
    if (!rc)
        rc = check_device_id("aclrtResetDevice", deviceId);
    if (!rc)
        hg_device_release_locked(deviceId, &dead, "aclrtResetDevice"); /* a device not set is a no-op */
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_shutdown_list(dead);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId)
{
    const char *func = "aclrtResetDeviceForce";
    hg_stream *dead = NULL;
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc)
        rc = check_device_id(func, deviceId);
    /* whatever the count of aclrtSetDevice calls; queued work still runs before the
     * streams go.  A device not set is a no-op, as for aclrtResetDevice. */
    if (!rc && hg_rt.dev[deviceId].refcount > 0)
        close_device_locked(deviceId, &dead, func);
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_shutdown_list(dead);
    return hg_rt_ret(rc);
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
    return hg_rt_ret(rc);
}

/* Needs no aclInit, as CANN's, which asks the driver: outside an aclInit..aclFinalize span the
 * count is read from the environment as aclInit reads it; inside, it is the one aclInit read. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (!count) {
        hg_set_error("aclrtGetDeviceCount", "count is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&hg_rt.mu);
    int n = hg_rt.device_count;
    aclError rc = hg_rt.state == 1 ? ACL_SUCCESS : hg_read_device_count("aclrtGetDeviceCount", &n);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!rc)
        *count = (uint32_t)n;
    return hg_rt_ret(rc);
}

/* Wait for every stream of the current device, up to deadline_ns. */
static aclError sync_device(const char *func, uint64_t deadline_ns)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_check_init_locked(func);
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    hg_stream **list = NULL;
    size_t n = 0;
    if (!rc) {
        list = malloc((hg_rt.streams.cap + 1u) * sizeof *list);
        if (!list) {
            hg_set_error(func, "out of host memory");
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
    bool in_time = true;
    for (size_t i = 0; i < n; ++i) {
        if (in_time)
            in_time = hg_stream_sync_until(list[i], deadline_ns);
        hg_stream_release(list[i]);
    }
    free(list);
    if (!rc && !in_time) {
        hg_set_error(func, "the tasks of device %d did not finish in time", dev);
        rc = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    }
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void)
{
    return sync_device("aclrtSynchronizeDevice", UINT64_MAX);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    if (timeout < -1) {
        hg_set_error("aclrtSynchronizeDeviceWithTimeout", "timeout (%d) must be -1 (wait for ever) or at least 0 (ms)",
                     (int)timeout);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    return sync_device("aclrtSynchronizeDeviceWithTimeout", hg_deadline_ms(timeout));
}

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    aclError rc = hg_check_init("aclrtGetRunMode");
    if (rc)
        return hg_rt_ret(rc);
    if (!runMode) {
        hg_set_error("aclrtGetRunMode", "runMode is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
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
            hg_device_release_locked(deviceId, &dead, "aclrtCreateContext");
            pthread_mutex_unlock(&hg_rt.mu);
            hg_stream_shutdown_list(dead);
            hg_set_error("aclrtCreateContext", "out of host memory");
            return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
        }
        c->device = deviceId;
        c->primary = false;
        hg_rt_count_add(HG_RTC_CONTEXTS, 1);
        hg_tls_bind_locked(deviceId, h);
        *context = (aclrtContext)h;
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, "aclrtCreateContext", "context 0x%llx created on device %d",
               (unsigned long long)h, (int)deviceId);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
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
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, "aclrtDestroyContext", "context %p of device %d destroyed", context,
               c->device);
        hg_device_release_locked(c->device, &dead, "aclrtDestroyContext");
        hg_rt_count_add(HG_RTC_CONTEXTS, -1);
        free(c);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_shutdown_list(dead);
    return hg_rt_ret(rc);
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
    return hg_rt_ret(rc);
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
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError hgGetCurrentContext(aclrtContext *context)
{
    if (!context) {
        hg_set_error("hgGetCurrentContext", "context is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    *context = NULL;
    pthread_mutex_lock(&hg_rt.mu);
    int dev = hg_rt.state == 1 ? hg_current_device_locked() : -1;
    if (dev >= 0) {
        uintptr_t h = hg_tls_ctx();
        if (!h || !hg_table_get(&hg_rt.contexts, h))
            h = hg_rt.dev[dev].primary_ctx;
        *context = (aclrtContext)h;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_enter_locked("aclrtCtxGetCurrentDefaultStream", stream, "stream", &dev);
    if (!rc)
        *stream = NULL; /* the default stream's handle is NULL in every call that takes a stream */
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

/* ------------------------------------------------------------------ device queries */

static aclError device_query_begin(const char *func, int32_t deviceId, const void *out, const char *out_name)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !out) {
        hg_set_error(func, "%s is NULL", out_name);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc)
        rc = check_device_id(func, deviceId);
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    aclError rc = device_query_begin("aclrtQueryDeviceStatus", deviceId, deviceStatus, "deviceStatus");
    if (!rc)
        *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    const char *func = "aclrtGetDeviceUtilizationRate";
    aclError rc = device_query_begin(func, deviceId, utilizationInfo, "utilizationInfo");
    if (rc)
        return hg_rt_ret(rc);
    if (utilizationInfo->utilizationExtend) {
        hg_set_error(func, "utilizationInfo->utilizationExtend is reserved and must be NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    size_t free_b = 0, total_b = 0;
    pthread_mutex_lock(&hg_rt.mu);
    total_b = (size_t)hg_rt.mem_capacity;
    pthread_mutex_unlock(&hg_rt.mu);
    free_b = total_b - hg_mem_used(deviceId);
    /* no compute units to sample: cube, vector and AI CPU read 0 % */
    utilizationInfo->cubeUtilization = 0;
    utilizationInfo->vectorUtilization = 0;
    utilizationInfo->aicpuUtilization = 0;
    utilizationInfo->memoryUtilization = total_b ? (int32_t)((total_b - free_b) * 100.0 / (double)total_b) : 0;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    if (!leastPriority || !greatestPriority) {
        hg_set_error("aclrtDeviceGetStreamPriorityRange", "%s is NULL",
                     !leastPriority ? "leastPriority" : "greatestPriority");
        return ACL_ERROR_INVALID_PARAM;
    }
    *leastPriority = 7;
    *greatestPriority = 0;
    return ACL_SUCCESS;
}

/* What the emulated device reports: an Atlas A2-class part (24 AI Cores with 48 vector
 * cores, 6 AI CPUs, 192 MiB of L2). */
#define HG_AICORE_NUM 24
#define HG_VECTOR_CORE_NUM 48
#define HG_AICPU_NUM 6
#define HG_L2_BYTES (192ll << 20)

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    const char *func = "aclrtGetDeviceInfo";
    aclError rc = device_query_begin(func, deviceId > (uint32_t)INT32_MAX ? -1 : (int32_t)deviceId, value, "value");
    if (rc)
        return hg_rt_ret(rc);
    switch ((int)attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: *value = HG_AICPU_NUM; break;
    case ACL_DEV_ATTR_AICORE_CORE_NUM: *value = HG_AICORE_NUM; break;
    case ACL_DEV_ATTR_CUBE_CORE_NUM: *value = HG_AICORE_NUM; break;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = HG_VECTOR_CORE_NUM; break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        pthread_mutex_lock(&hg_rt.mu);
        *value = (int64_t)hg_rt.mem_capacity;
        pthread_mutex_unlock(&hg_rt.mu);
        break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = HG_L2_BYTES; break;
    case ACL_DEV_ATTR_IS_VIRTUAL: *value = 0; break;
    case ACL_DEV_ATTR_NPU_ARCH: *value = 2201; break;
    default:
        hg_set_error(func, "attr (%d) is not reported by the embedded runtime (supported: AICPU_CORE_NUM, "
                     "AICORE_CORE_NUM, CUBE_CORE_NUM, VECTOR_CORE_NUM, TOTAL_GLOBAL_MEM_SIZE, L2_CACHE_SIZE, "
                     "IS_VIRTUAL, NPU_ARCH)", (int)attr);
        return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    const char *func = "aclGetDeviceCapability";
    aclError rc = device_query_begin(func, deviceId > (uint32_t)INT32_MAX ? -1 : (int32_t)deviceId, value, "value");
    if (rc)
        return hg_rt_ret(rc);
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM: *value = HG_AICORE_NUM; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = HG_VECTOR_CORE_NUM; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: *value = HG_L2_BYTES; return ACL_SUCCESS;
    default:
        hg_set_error(func, "deviceInfo (%d) is not an aclDeviceInfo value", (int)deviceInfo);
        return ACL_ERROR_INVALID_PARAM;
    }
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                                      int32_t *value)
{
    const char *func = "aclrtGetDeviceCapability";
    aclError rc = device_query_begin(func, deviceId, value, "value");
    if (rc)
        return hg_rt_ret(rc);
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV) {
        hg_set_error(func, "devFeatureType (%d) is not an aclrtDevFeatureType value", (int)devFeatureType);
        return ACL_ERROR_INVALID_PARAM;
    }
    *value = ACL_DEV_FEATURE_NOT_SUPPORT; /* neither device-side feature exists on a CPU */
    return ACL_SUCCESS;
}

static aclError check_res_type(const char *func, aclrtDevResLimitType type)
{
    if (type == ACL_RT_DEV_RES_CUBE_CORE || type == ACL_RT_DEV_RES_VECTOR_CORE)
        return ACL_SUCCESS;
    hg_set_error(func, "type (%d) is not ACL_RT_DEV_RES_CUBE_CORE or ACL_RT_DEV_RES_VECTOR_CORE", (int)type);
    return ACL_ERROR_INVALID_PARAM;
}

static uint32_t res_default(aclrtDevResLimitType type)
{
    return type == ACL_RT_DEV_RES_CUBE_CORE ? HG_AICORE_NUM : HG_VECTOR_CORE_NUM;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    const char *func = "aclrtGetDeviceResLimit";
    aclError rc = device_query_begin(func, deviceId, value, "value");
    if (!rc)
        rc = check_res_type(func, type);
    if (rc)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&hg_rt.mu);
    uint32_t v = hg_rt.dev[deviceId].res_limit[type];
    pthread_mutex_unlock(&hg_rt.mu);
    *value = v ? v : res_default(type);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    const char *func = "aclrtSetDeviceResLimit";
    aclError rc = device_query_begin(func, deviceId, &value, "value");
    if (!rc)
        rc = check_res_type(func, type);
    if (!rc && (value == 0 || value > res_default(type))) {
        hg_set_error(func, "value (%u) is out of range [1, %u]", value, res_default(type));
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (rc)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&hg_rt.mu);
    hg_rt.dev[deviceId].res_limit[type] = value; /* kernels here use host threads, not cores */
    pthread_mutex_unlock(&hg_rt.mu);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    int32_t dummy = 0;
    aclError rc = device_query_begin("aclrtResetDeviceResLimit", deviceId, &dummy, "deviceId");
    if (rc)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&hg_rt.mu);
    hg_rt.dev[deviceId].res_limit[0] = hg_rt.dev[deviceId].res_limit[1] = 0;
    pthread_mutex_unlock(&hg_rt.mu);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    const char *func = "aclrtGetResInCurrentThread";
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_enter_locked(func, value, "value", &dev);
    if (!rc)
        rc = check_res_type(func, type);
    if (!rc) {
        uint32_t v = hg_rt.dev[dev].res_limit[type];
        *value = v ? v : res_default(type);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    uint32_t sv;
    if (!rc && hg_thread_stream_res(type, &sv)) /* aclrtUseStreamResInCurrentThread */
        *value = sv;
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    const char *func = "aclrtCheckArchCompatibility";
    if (!socVersion || !canCompatible) {
        hg_set_error(func, "%s is NULL", !socVersion ? "socVersion" : "canCompatible");
        return ACL_ERROR_INVALID_PARAM;
    }
    /* code built for a SoC runs here when it names the same SoC family */
    const char *soc = hg_soc_name();
    size_t n = strlen(soc);
    const char *family[] = {"Ascend910_93", "Ascend910B", "Ascend950", "Ascend310P", "Ascend310B", "Ascend910"};
    for (size_t i = 0; i < sizeof family / sizeof family[0]; ++i) {
        size_t k = strlen(family[i]);
        if (strncmp(soc, family[i], k) == 0) {
            n = k;
            break;
        }
    }
    *canCompatible = strncmp(soc, socVersion, n) == 0 ? 1 : 0;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ peer access */

bool hg_peer_enabled_locked(int from, int to)
{
    if (from == to)
        return true;
    if (from < 0 || to < 0 || from >= HG_MAX_DEVICES || to >= HG_MAX_DEVICES)
        return false;
    return (hg_rt.dev[from].peer_mask >> to) & 1u;
}

bool hg_peer_enabled(int from, int to)
{
    pthread_mutex_lock(&hg_rt.mu);
    bool ok = hg_peer_enabled_locked(from, to);
    pthread_mutex_unlock(&hg_rt.mu);
    return ok;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    const char *func = "aclrtDeviceCanAccessPeer";
    aclError rc = device_query_begin(func, deviceId, canAccessPeer, "canAccessPeer");
    if (!rc) {
        pthread_mutex_lock(&hg_rt.mu);
        rc = check_device_id(func, peerDeviceId);
        pthread_mutex_unlock(&hg_rt.mu);
    }
    if (!rc && deviceId == peerDeviceId) {
        hg_set_error(func, "deviceId and peerDeviceId are both %d (a device is not its own peer)", (int)deviceId);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (rc)
        return hg_rt_ret(rc);
    *canAccessPeer = 1; /* every virtual device shares the host's memory */
    return ACL_SUCCESS;
}

static aclError peer_change(const char *func, int32_t peerDeviceId, bool enable)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    if (!rc)
        rc = check_device_id(func, peerDeviceId);
    if (!rc && peerDeviceId == dev) {
        hg_set_error(func, "peerDeviceId (%d) is the current device", (int)peerDeviceId);
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc) {
        uint64_t bit = 1ull << peerDeviceId;
        bool on = (hg_rt.dev[dev].peer_mask & bit) != 0;
        if (enable == on) {
            hg_set_error(func, "peer access from device %d to device %d is already %s", dev, (int)peerDeviceId,
                         on ? "enabled" : "disabled");
            rc = ACL_ERROR_RT_PARAM_INVALID;
        } else if (enable) {
            hg_rt.dev[dev].peer_mask |= bit;
        } else {
            hg_rt.dev[dev].peer_mask &= ~bit;
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    if (flags != 0) {
        hg_set_error("aclrtDeviceEnablePeerAccess", "flags (%u) is reserved and must be 0", flags);
        return ACL_ERROR_INVALID_PARAM;
    }
    return peer_change("aclrtDeviceEnablePeerAccess", peerDeviceId, true);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    return peer_change("aclrtDeviceDisablePeerAccess", peerDeviceId, false);
}

ACL_FUNC_VISIBILITY aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    const char *func = "aclrtDevicePeerAccessStatus";
    aclError rc = device_query_begin(func, deviceId, status, "status");
    if (!rc) {
        pthread_mutex_lock(&hg_rt.mu);
        rc = check_device_id(func, peerDeviceId);
        if (!rc)
            *status = deviceId != peerDeviceId && hg_peer_enabled_locked(deviceId, peerDeviceId) ? 1 : 0;
        pthread_mutex_unlock(&hg_rt.mu);
    }
    return hg_rt_ret(rc);
}

/* ------------------------------------------------------------------ context options */

ACL_FUNC_VISIBILITY aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    const char *func = "aclrtGetPrimaryCtxState";
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_enter_locked(func, flags, "flags", NULL);
    if (!rc && !active) {
        hg_set_error(func, "active is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc)
        rc = check_device_id(func, deviceId);
    if (!rc) {
        *flags = 0;
        *active = hg_rt.dev[deviceId].refcount > 0 ? 1 : 0;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

static aclError sys_opt_check(const char *func, aclSysParamOpt opt)
{
    if ((int)opt < ACL_OPT_DETERMINISTIC || (int)opt > ACL_OPT_ENABLE_KERNEL_EARLY_START) {
        hg_set_error(func, "opt (%d) is not an aclSysParamOpt value", (int)opt);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

/* Kept per device (its default context); the kernels here are deterministic whatever the
 * setting, so the options are recorded and reported, nothing more. */
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    const char *func = "aclrtCtxSetSysParamOpt";
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_enter_locked(func, NULL, NULL, &dev);
    if (!rc)
        rc = sys_opt_check(func, opt);
    if (!rc) {
        hg_rt.dev[dev].sys_opt[opt] = value;
        hg_rt.dev[dev].sys_opt_set |= (uint8_t)(1u << opt);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    const char *func = "aclrtCtxGetSysParamOpt";
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_enter_locked(func, value, "value", &dev);
    if (!rc)
        rc = sys_opt_check(func, opt);
    if (!rc && !(hg_rt.dev[dev].sys_opt_set & (1u << opt))) {
        hg_set_error(func, "opt (%d) has not been set on this context (aclrtCtxSetSysParamOpt)", (int)opt);
        rc = ACL_ERROR_RT_SYSPARAMOPT_NOT_SET;
    }
    if (!rc)
        *value = hg_rt.dev[dev].sys_opt[opt];
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}
