/* Device, stream and process settings beyond the basics of device.c and stream.c:
 *
 *   - float saturation mode (aclrtSetDeviceSatMode / aclrtGetDeviceSatMode), per device: in
 *     ACL_RT_OVERFLOW_MODE_SATURATION a float result too large for its type becomes the largest
 *     finite value of its sign, in ACL_RT_OVERFLOW_MODE_INFNAN (the default) it becomes inf;
 *   - overflow status: a task with overflow checking on (its stream's overflow switch,
 *     aclrtSetStreamOverflowSwitch or ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK) that turns finite
 *     operands into inf or NaN sets its device's status; aclrtGetOverflowStatus (and the
 *     FloatOverflow / NpuGetFloatOverFlow spellings) copies the 64-byte status -- first 64-bit
 *     word 1 after an overflow, else 0 -- to device memory as a task of the stream, and the Reset /
 *     Clear calls zero it as a task of the stream;
 *   - stream attributes (aclrtSetStreamAttribute / aclrtGetStreamAttribute);
 *   - operator timeouts: accepted and reported back (a CPU device never cuts a task short);
 *   - process-wide system parameters (aclrtSetSysParamOpt / aclrtGetSysParamOpt);
 *   - device id translations: user, logical and physical ids are the same numbers here;
 *   - aclrtDeviceGetBareTgid (the process id), aclrtSetTsDevice, aclrtMallocWithCfg and
 *     aclrtMallocHostWithCfg (the configuration's attributes change nothing on the CPU). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_ext.h"
#include "pyacl_hardgrad/embedded.h"
#include "rt_internal.h"

#define HG_OVERFLOW_STATUS_BYTES 64u

static _Atomic int g_sat_mode[HG_MAX_DEVICES];  /* 0: not set (INFNAN); else mode + 1 */
static atomic_uint g_overflow[HG_MAX_DEVICES];  /* status word of each device */

aclrtFloatOverflowMode hg_sat_mode(int dev)
{
    if (dev < 0 || dev >= HG_MAX_DEVICES)
        return ACL_RT_OVERFLOW_MODE_INFNAN;
    int m = atomic_load_explicit(&g_sat_mode[dev], memory_order_relaxed);
    return m ? (aclrtFloatOverflowMode)(m - 1) : ACL_RT_OVERFLOW_MODE_INFNAN;
}

void hg_overflow_raise(int dev)
{
    if (dev >= 0 && dev < HG_MAX_DEVICES)
        atomic_store_explicit(&g_overflow[dev], 1u, memory_order_release);
}

/* The current device, with the front checks of a call (initialised). */
static aclError current_device(const char *func, int *dev)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_enter_locked(func, NULL, NULL, dev);
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    const char *func = "aclrtSetDeviceSatMode";
    int dev = -1;
    aclError rc = current_device(func, &dev);
    if (rc)
        return hg_rt_ret(rc);
    if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN) {
        hg_set_error(func, "mode (%d) is not ACL_RT_OVERFLOW_MODE_SATURATION (0) or ACL_RT_OVERFLOW_MODE_INFNAN (1)",
                     (int)mode);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    atomic_store_explicit(&g_sat_mode[dev], (int)mode + 1, memory_order_relaxed);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    const char *func = "aclrtGetDeviceSatMode";
    if (!mode) {
        hg_set_error(func, "mode is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    aclError rc = current_device(func, &dev);
    if (rc)
        return hg_rt_ret(rc);
    *mode = hg_sat_mode(dev);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ overflow status */

typedef struct status_copy {
    int dev;
    void *dst;
    size_t n;
} status_copy;

static void status_copy_task(void *arg)
{
    status_copy *c = arg;
    uint8_t status[HG_OVERFLOW_STATUS_BYTES] = {0};
    uint64_t word = atomic_load_explicit(&g_overflow[c->dev], memory_order_acquire);
    memcpy(status, &word, sizeof word);
    size_t head = c->n < sizeof status ? c->n : sizeof status;
    memcpy(c->dst, status, head);
    memset((uint8_t *)c->dst + head, 0, c->n - head);
    free(c);
}

static void status_reset_task(void *arg)
{
    status_copy *c = arg;
    atomic_store_explicit(&g_overflow[c->dev], 0u, memory_order_release);
    free(c);
}

static aclError queue_status_task(const char *func, aclrtStream stream, void *dst, size_t n, bool reset)
{
    aclError rc = hg_check_init(func);
    if (rc)
        return hg_rt_ret(rc);
    int dev = hg_stream_device(stream, func, &rc);
    if (rc)
        return hg_rt_ret(rc);
    if (!reset) {
        if (HG_CHECKING())
            hg_chk_bounds(func, "outputAddr", dst, n);
        int owner = hg_memory_device(dst, n);
        if (owner < 0) {
            hg_set_error(func, "outputAddr (%p) with outputSize (%zu) is not inside a device allocation", dst, n);
            return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
        }
        if (owner != dev && !hg_peer_enabled(dev, owner)) {
            hg_set_error(func, "outputAddr is memory of device %d but the stream runs on device %d without peer "
                         "access", owner, dev);
            return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
        }
    }
    status_copy *c = malloc(sizeof *c);
    if (!c) {
        hg_set_error(func, "out of host memory");
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    *c = (status_copy){dev, dst, n};
    if (!reset && HG_CHECKING()) {
        hg_access acc = {dst, (uintptr_t)dst, (uintptr_t)dst + n, 1, 1, "outputAddr"};
        hg_check_pending(&acc, 1);
    }
    rc = hg_stream_submit(stream, func, reset ? status_reset_task : status_copy_task, c);
    if (!reset && HG_CHECKING())
        hg_check_pending(NULL, 0);
    if (rc)
        free(c);
    return hg_rt_ret(rc);
}

static aclError get_status(const char *func, void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
    if (!outputAddr) {
        hg_set_error(func, "outputAddr is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (outputSize == 0 || outputSize > SIZE_MAX) {
        hg_set_error(func, "outputSize (%llu) must be greater than 0", (unsigned long long)outputSize);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    return queue_status_task(func, stream, outputAddr, (size_t)outputSize, false);
}

ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    return get_status("aclrtGetOverflowStatus", outputAddr, outputSize, stream);
}

ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream)
{
    return queue_status_task("aclrtResetOverflowStatus", stream, NULL, 0, true);
}

ACL_FUNC_VISIBILITY aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
    return get_status("aclrtGetFloatOverflowStatus", outputAddr, outputSize, stream);
}

ACL_FUNC_VISIBILITY aclError aclrtResetFloatOverflowStatus(aclrtStream stream)
{
    return queue_status_task("aclrtResetFloatOverflowStatus", stream, NULL, 0, true);
}

ACL_FUNC_VISIBILITY aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode,
                                                            aclrtStream stream)
{
    (void)checkMode; /* one status per device here, whichever check mode reads it */
    return get_status("aclrtNpuGetFloatOverFlowStatus", outputAddr, outputSize, stream);
}

ACL_FUNC_VISIBILITY aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)
{
    (void)checkMode;
    return queue_status_task("aclrtNpuClearFloatOverFlowStatus", stream, NULL, 0, true);
}

/* ------------------------------------------------------------------ stream attributes */

/* The stream (NULL: the current device's default stream, created when `create`), referenced. */
static hg_stream *stream_of(const char *func, aclrtStream stream, bool create, aclError *rc)
{
    pthread_mutex_lock(&hg_rt.mu);
    *rc = hg_check_init_locked(func);
    hg_stream *s = NULL;
    if (!*rc)
        s = hg_stream_acquire_locked(stream, func, create, rc);
    pthread_mutex_unlock(&hg_rt.mu);
    return s;
}

bool hg_stream_overflow_switch(aclrtStream stream, const char *func, aclError *rc)
{
    hg_stream *s = stream_of(func, stream, false, rc);
    bool on = s && s->overflow_switch;
    hg_stream_release(s);
    return on;
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    const char *func = "aclrtSetStreamOverflowSwitch";
    if (flag != 0u && flag != 1u) {
        hg_set_error(func, "flag (%u) must be 0 or 1", (unsigned)flag);
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc;
    hg_stream *s = stream_of(func, stream, true, &rc);
    if (s)
        s->overflow_switch = flag;
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    const char *func = "aclrtGetStreamOverflowSwitch";
    if (!flag) {
        hg_set_error(func, "flag is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc;
    hg_stream *s = stream_of(func, stream, false, &rc);
    if (!rc)
        *flag = s ? s->overflow_switch : 0u;
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

#define HG_LOWEST_STREAM_PRIORITY 7u

ACL_FUNC_VISIBILITY aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value)
{
    const char *func = "aclrtSetStreamAttribute";
    if (!value) {
        hg_set_error(func, "value is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        return aclrtSetStreamFailureMode(stream, value->failureMode);
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        return aclrtSetStreamOverflowSwitch(stream, value->overflowSwitch);
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
    case ACL_STREAM_ATTR_PRIORITY:
        break;
    default:
        hg_set_error(func, "stmAttrType (%d) is not an aclrtStreamAttr value (1..5)", (int)stmAttrType);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if (stmAttrType == ACL_STREAM_ATTR_PRIORITY && value->streamPriority > HG_LOWEST_STREAM_PRIORITY) {
        hg_set_error(func, "streamPriority (%u) is out of range [0, %u]", (unsigned)value->streamPriority,
                     HG_LOWEST_STREAM_PRIORITY);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    aclError rc;
    hg_stream *s = stream_of(func, stream, true, &rc);
    if (s) {
        if (stmAttrType == ACL_STREAM_ATTR_USER_CUSTOM_TAG)
            s->user_tag = value->userCustomTag;
        else if (stmAttrType == ACL_STREAM_ATTR_CACHE_OP_INFO)
            s->cache_op_info = value->cacheOpInfoSwitch;
        else
            s->priority = value->streamPriority;
    }
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value)
{
    const char *func = "aclrtGetStreamAttribute";
    if (!value) {
        hg_set_error(func, "value is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if ((int)stmAttrType < ACL_STREAM_ATTR_FAILURE_MODE || (int)stmAttrType > ACL_STREAM_ATTR_PRIORITY) {
        hg_set_error(func, "stmAttrType (%d) is not an aclrtStreamAttr value (1..5)", (int)stmAttrType);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    aclError rc;
    hg_stream *s = stream_of(func, stream, false, &rc);
    if (!rc) {
        switch (stmAttrType) {
        case ACL_STREAM_ATTR_FAILURE_MODE:
            value->failureMode = s ? s->failure_mode : ACL_CONTINUE_ON_FAILURE;
            break;
        case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
            value->overflowSwitch = s ? s->overflow_switch : 0u;
            break;
        case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
            value->userCustomTag = s ? s->user_tag : 0u;
            break;
        case ACL_STREAM_ATTR_CACHE_OP_INFO:
            value->cacheOpInfoSwitch = s ? s->cache_op_info : 0u;
            break;
        default:
            value->streamPriority = s ? s->priority : 0u;
            break;
        }
    }
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

/* ------------------------------------------------------------------ operator timeouts */

static pthread_mutex_t g_timeout_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t g_op_wait_timeout_s;     /* aclrtSetOpWaitTimeout; 0: the default */
static uint64_t g_op_execute_timeout_us; /* aclrtSetOpExecuteTimeOut*; 0: never */

/* The timeout granularity the emulated device reports (aclrtGetOpTimeOutInterval), in us. */
#define HG_OP_TIMEOUT_INTERVAL_US 1u

ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    pthread_mutex_lock(&g_timeout_mu);
    g_op_wait_timeout_s = timeout;
    pthread_mutex_unlock(&g_timeout_mu);
    return ACL_SUCCESS;
}

static aclError set_execute_timeout_us(uint64_t us)
{
    pthread_mutex_lock(&g_timeout_mu);
    g_op_execute_timeout_us = us;
    pthread_mutex_unlock(&g_timeout_mu);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    return set_execute_timeout_us((uint64_t)timeout * 1000000u);
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    return set_execute_timeout_us((uint64_t)timeout * 1000u);
}

ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    const char *func = "aclrtSetOpExecuteTimeOutV2";
    if (!actualTimeout) {
        hg_set_error(func, "actualTimeout is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    int dev;
    aclError rc = current_device(func, &dev);
    if (rc)
        return hg_rt_ret(rc);
    set_execute_timeout_us(timeout);
    *actualTimeout = timeout == 0 ? UINT64_MAX : timeout; /* 0: never times out */
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    const char *func = "aclrtGetOpTimeOutInterval";
    if (!interval) {
        hg_set_error(func, "interval is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    int dev;
    aclError rc = current_device(func, &dev);
    if (rc)
        return hg_rt_ret(rc);
    *interval = HG_OP_TIMEOUT_INTERVAL_US;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    if (!timeoutMs) {
        hg_set_error("aclrtGetOpExecuteTimeout", "timeoutMs is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_timeout_mu);
    uint64_t ms = g_op_execute_timeout_us / 1000u;
    pthread_mutex_unlock(&g_timeout_mu);
    *timeoutMs = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ process-wide parameters */

static int64_t g_sys_opt[4];
static uint8_t g_sys_opt_set;

ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    const char *func = "aclrtSetSysParamOpt";
    if ((int)opt < ACL_OPT_DETERMINISTIC || (int)opt > ACL_OPT_ENABLE_KERNEL_EARLY_START) {
        hg_set_error(func, "opt (%d) is not an aclSysParamOpt value", (int)opt);
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_timeout_mu);
    g_sys_opt[opt] = value;
    g_sys_opt_set |= (uint8_t)(1u << opt);
    pthread_mutex_unlock(&g_timeout_mu);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    const char *func = "aclrtGetSysParamOpt";
    if (!value) {
        hg_set_error(func, "value is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if ((int)opt < ACL_OPT_DETERMINISTIC || (int)opt > ACL_OPT_ENABLE_KERNEL_EARLY_START) {
        hg_set_error(func, "opt (%d) is not an aclSysParamOpt value", (int)opt);
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&g_timeout_mu);
    bool set = g_sys_opt_set & (1u << opt);
    if (set)
        *value = g_sys_opt[opt];
    pthread_mutex_unlock(&g_timeout_mu);
    if (!set) {
        hg_set_error(func, "opt (%d) has not been set (aclrtSetSysParamOpt)", (int)opt);
        return hg_rt_ret(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ device ids */

/* User, logical and physical ids of an embedded device are the same number. */
static aclError same_id(const char *func, const char *in_name, int32_t in, const char *out_name, int32_t *out)
{
    if (!out) {
        hg_set_error(func, "%s is NULL", out_name);
        return ACL_ERROR_INVALID_PARAM;
    }
    int count = 0;
    aclError rc = hg_read_device_count(func, &count);
    if (rc)
        return hg_rt_ret(rc);
    if (in < 0 || in >= count) {
        hg_set_error(func, "%s (%d) is out of range [0, %d)", in_name, (int)in, count);
        return hg_rt_ret(ACL_ERROR_RT_INVALID_DEVICEID);
    }
    *out = in;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    return same_id("aclrtGetLogicDevIdByUserDevId", "userDevid", userDevid, "logicDevId", logicDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    return same_id("aclrtGetUserDevIdByLogicDevId", "logicDevId", logicDevId, "userDevid", userDevid);
}

ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    return same_id("aclrtGetLogicDevIdByPhyDevId", "phyDevId", phyDevId, "logicDevId", logicDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    return same_id("aclrtGetPhyDevIdByLogicDevId", "logicDevId", logicDevId, "phyDevId", phyDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
    return same_id("aclrtGetUserDevIdByPhyDevId", "phyDevId", phyDevId, "userDevId", userDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
    return same_id("aclrtGetPhyDevIdByUserDevId", "userDevId", userDevId, "phyDevId", phyDevId);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    if (!pid) {
        hg_set_error("aclrtDeviceGetBareTgid", "pid is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    *pid = (int32_t)getpid(); /* the device's work runs in this process */
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId)
{
    const char *func = "aclrtSetTsDevice";
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR) {
        hg_set_error(func, "tsId (%d) must be ACL_TS_ID_AICORE or ACL_TS_ID_AIVECTOR", (int)tsId);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS; /* one task scheduler: the CPU's stream workers */
}

/* ------------------------------------------------------------------ allocation with a configuration */

ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                aclrtMallocConfig *cfg)
{
    (void)cfg; /* module id, device id and VA flags place memory on an NPU; one kind of memory here */
    return aclrtMalloc(devPtr, size, policy);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    (void)cfg;
    if (size > SIZE_MAX) {
        hg_set_error("aclrtMallocHostWithCfg", "size (%llu) is larger than the address space",
                     (unsigned long long)size);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    return aclrtMallocHost(ptr, (size_t)size);
}

/* ------------------------------------------------------------------ pointers, ids, stream waits */

ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    const char *func = "aclrtPointerGetAttributes";
    if (!ptr || !attributes) {
        hg_set_error(func, "%s is NULL", !ptr ? "ptr" : "attributes");
        return ACL_ERROR_INVALID_PARAM;
    }
    hgAllocation info;
    aclError rc = hgQueryAllocation(ptr, &info);
    if (rc)
        return rc;
    memset(attributes, 0, sizeof *attributes);
    if (info.kind == HG_MEMORY_DEVICE) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)info.deviceId;
    } else {
        /* aclrtMallocHost memory is the runtime's pinned host memory; anything else is plain */
        attributes->location.type =
            info.kind == HG_MEMORY_HOST ? ACL_MEM_LOCATION_TYPE_HOST : ACL_MEM_LOCATION_TYPE_UNREGISTERED;
    }
    long page = sysconf(_SC_PAGESIZE);
    attributes->pageSize = page > 0 ? (uint32_t)page : 4096u;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    const char *func = "aclrtDeviceGetUuid";
    if (!uuid) {
        hg_set_error(func, "uuid is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    int count = 0;
    aclError rc = hg_read_device_count(func, &count);
    if (rc)
        return hg_rt_ret(rc);
    if (deviceId < 0 || deviceId >= count) {
        hg_set_error(func, "deviceId (%d) is out of range [0, %d)", (int)deviceId, count);
        return hg_rt_ret(ACL_ERROR_RT_INVALID_DEVICEID);
    }
    /* stable per device and distinct between devices: a fixed prefix and the device id */
    static const char prefix[12] = {'p', 'y', 'a', 'c', 'l', '-', 'h', 'g', '-', 'd', 'e', 'v'};
    memcpy(uuid->bytes, prefix, sizeof prefix);
    uint32_t id = (uint32_t)deviceId;
    for (int i = 0; i < 4; ++i)
        uuid->bytes[12 + i] = (char)((id >> (24 - 8 * i)) & 0xffu);
    return ACL_SUCCESS;
}

/* The embedded devices' event waits take no time limit (as CANN's runtime on the chips whose
 * stream waits ignore it): the wait is aclrtStreamWaitEvent's. */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    (void)timeout;
    return aclrtStreamWaitEvent(stream, event);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
                                                          uint32_t flag)
{
    const char *func = "aclrtStreamWaitEventWithFlag";
    if (flag == ACL_EVENT_WAIT_DEFAULT)
        return aclrtStreamWaitEvent(stream, event);
    if (flag == ACL_EVENT_WAIT_EXTERNAL) {
        if (timeout != 0) {
            hg_set_error(func, "timeout (%u) must be 0 with ACL_EVENT_WAIT_EXTERNAL", (unsigned)timeout);
            return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
        }
        hg_set_error(func, "not supported: external events are recorded by other processes or devices (IPC), "
                           "which the embedded runtime does not share events with");
        return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    hg_set_error(func, "flag (%u) is not ACL_EVENT_WAIT_DEFAULT (0) or ACL_EVENT_WAIT_EXTERNAL (1)", (unsigned)flag);
    return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
}

/* ------------------------------------------------------------------ stream resource limits */

/* The stream whose limits the calling thread's kernels use (aclrtUseStreamResInCurrentThread). */
static _Thread_local aclrtStream t_res_stream;
static _Thread_local bool t_res_stream_set;

static aclError check_res(const char *func, aclrtDevResLimitType type)
{
    if (type == ACL_RT_DEV_RES_CUBE_CORE || type == ACL_RT_DEV_RES_VECTOR_CORE)
        return ACL_SUCCESS;
    hg_set_error(func, "type (%d) is not ACL_RT_DEV_RES_CUBE_CORE or ACL_RT_DEV_RES_VECTOR_CORE", (int)type);
    return ACL_ERROR_INVALID_PARAM;
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)
{
    const char *func = "aclrtSetStreamResLimit";
    aclError rc = check_res(func, type);
    if (rc)
        return rc;
    hg_stream *s = stream_of(func, stream, true, &rc);
    if (s) {
        uint32_t device_limit = 0;
        rc = aclrtGetDeviceResLimit(s->device, type, &device_limit);
        if (!rc && (value == 0 || value > device_limit)) {
            hg_set_error(func, "value (%u) is out of range [1, %u] (the device's limit)", (unsigned)value,
                         (unsigned)device_limit);
            rc = ACL_ERROR_INVALID_PARAM;
        }
        if (!rc)
            s->res_limit[type] = value; /* kernels here use host threads, not cores */
    }
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)
{
    const char *func = "aclrtGetStreamResLimit";
    if (!value) {
        hg_set_error(func, "value is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    aclError rc = check_res(func, type);
    if (rc)
        return rc;
    hg_stream *s = stream_of(func, stream, true, &rc);
    if (s) {
        uint32_t v = s->res_limit[type];
        if (v)
            *value = v;
        else
            rc = aclrtGetDeviceResLimit(s->device, type, value);
    }
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtResetStreamResLimit(aclrtStream stream)
{
    aclError rc;
    hg_stream *s = stream_of("aclrtResetStreamResLimit", stream, true, &rc);
    if (s)
        s->res_limit[0] = s->res_limit[1] = 0;
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    aclError rc;
    hg_stream *s = stream_of("aclrtUseStreamResInCurrentThread", stream, true, &rc);
    if (s) {
        t_res_stream = stream;
        t_res_stream_set = true;
    }
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    aclError rc;
    hg_stream *s = stream_of("aclrtUnuseStreamResInCurrentThread", stream, true, &rc);
    if (s && t_res_stream_set && t_res_stream == stream)
        t_res_stream_set = false;
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

bool hg_thread_stream_res(aclrtDevResLimitType type, uint32_t *value)
{
    if (!t_res_stream_set)
        return false;
    aclError rc;
    hg_stream *s = stream_of("aclrtGetResInCurrentThread", t_res_stream, false, &rc);
    bool found = s && s->res_limit[type];
    if (found)
        *value = s->res_limit[type];
    hg_stream_release(s);
    if (rc) /* the stream went away: the thread uses the device's limits again */
        t_res_stream_set = false;
    return found;
}
