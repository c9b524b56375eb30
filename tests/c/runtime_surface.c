/* The runtime calls beyond the basics that the embedded runtime implements (device_ext.c,
 * lifecycle.c, allocator.c, reduce.c): init and finalize callbacks, aclFinalizeReference,
 * saturation mode and overflow status, stream attributes, timeouts, process parameters and
 * device ids, external allocators, and aclrtReduceAsync's argument checks and ordering.
 *
 * `runtime_surface <check>` runs one check (runtime_harness.h); `runtime_surface reduce <kind>
 * <type> <bytes> <in> <out>` reduces the second half of file <in> (src) into its first half (dst)
 * on the device and writes dst to <out> (tests/test_runtime_surface.py compares it with numpy). */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_rt_memory_soma.h"
#include "runtime_harness.h"

/* ------------------------------------------------------------------ init / finalize callbacks */

static char g_trace[256];

static void trace(const char *what)
{
    strncat(g_trace, what, sizeof g_trace - strlen(g_trace) - 1);
    strncat(g_trace, " ", sizeof g_trace - strlen(g_trace) - 1);
}

static size_t g_config_len;
static char g_config[64];

static aclError init_model(const char *config, size_t len, void *user)
{
    g_config_len = len;
    snprintf(g_config, sizeof g_config, "%.*s", (int)len, config);
    trace((const char *)user);
    return ACL_SUCCESS;
}

static aclError init_other(const char *config, size_t len, void *user)
{
    (void)config;
    (void)len;
    trace((const char *)user);
    return ACL_SUCCESS;
}

static aclError init_other2(const char *config, size_t len, void *user)
{
    return init_other(config, len, user);
}

static aclError init_fails(const char *config, size_t len, void *user)
{
    (void)config;
    (void)len;
    (void)user;
    return ACL_ERROR_FAILURE;
}

static aclError fini_cb(void *user)
{
    trace((const char *)user);
    return ACL_SUCCESS;
}

static aclError fini_cb2(void *user)
{
    return fini_cb(user);
}

static void check_init_finalize_callbacks(void)
{
    char path[] = "/tmp/hg_surface_cfgXXXXXX";
    int fd = mkstemp(path);
    EXPECT_TRUE(fd >= 0);
    EXPECT(write(fd, "{\"k\": 1}", 8), 8);
    close(fd);

    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclInitCallbackRegister", "cbFunc");
    /* registered in an order different from the one aclInit runs them in */
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_other, "other1"), ACL_SUCCESS);
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_other, "dvpp"), ACL_SUCCESS);
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_other2, "other2"), ACL_SUCCESS);
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_CBLAS, init_other, "cblas"), ACL_SUCCESS);
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_model, "model"), ACL_SUCCESS);
    /* one callback per type except OTHER */
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_other, "model2"), ACL_ERROR_INTERNAL_ERROR);
    EXPECT(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "f-other"), ACL_SUCCESS);
    EXPECT(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, fini_cb, "f-model"), ACL_SUCCESS);
    EXPECT(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, fini_cb2, "f-compiler"), ACL_SUCCESS);
    EXPECT(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, fini_cb, "f-tdtq"), ACL_SUCCESS);

    EXPECT(aclInit(path), ACL_SUCCESS);
    /* MODEL, (OP_EXECUTOR), DVPP, OTHER in registration order; CBLAS is never run by aclInit */
    EXPECT(strcmp(g_trace, "model dvpp other1 other2 "), 0);
    EXPECT(g_config_len, 8);
    EXPECT(strcmp(g_config, "{\"k\": 1}"), 0);
    /* registered while initialised: runs at once with the configuration */
    g_trace[0] = '\0';
    EXPECT(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_model), ACL_SUCCESS);
    EXPECT(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_model), ACL_ERROR_INTERNAL_ERROR);
    EXPECT_MSG("aclInitCallbackUnRegister", "not registered");
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_model, "late"), ACL_SUCCESS);
    EXPECT(strcmp(g_trace, "late "), 0);
    EXPECT(g_config_len, 8);

    g_trace[0] = '\0';
    EXPECT(aclFinalize(), ACL_SUCCESS);
    EXPECT(strcmp(g_trace, "f-compiler f-model f-other "), 0);

    /* unregistered callbacks no longer run; a failing one fails aclInit, which initialises nothing */
    EXPECT(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, fini_cb), ACL_SUCCESS);
    EXPECT(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, fini_cb), ACL_ERROR_INTERNAL_ERROR);
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_fails, NULL), ACL_ERROR_INTERNAL_ERROR);
    EXPECT(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_other), ACL_SUCCESS);
    EXPECT(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_fails, NULL), ACL_SUCCESS);
    g_trace[0] = '\0';
    EXPECT(aclInit(NULL), ACL_ERROR_FAILURE);
    EXPECT_MSG("aclInit", "init callback", "failed");
    EXPECT(strcmp(g_trace, "late "), 0); /* MODEL ran, DVPP failed, OTHER did not run */
    EXPECT(g_config_len, 0);
    EXPECT(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
    EXPECT(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_fails), ACL_SUCCESS);
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    g_trace[0] = '\0';
    EXPECT(aclFinalize(), ACL_SUCCESS);
    EXPECT(strcmp(g_trace, "f-compiler f-other "), 0);
    unlink(path);
}

static void check_finalize_reference(void)
{
    uint64_t refs = 99;
    EXPECT(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
    EXPECT(refs, 0);
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT(aclFinalizeReference(&refs), ACL_SUCCESS);
    EXPECT(refs, 2);
    EXPECT(aclFinalizeReference(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS); /* still initialised: one reference left */
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclFinalizeReference(&refs), ACL_SUCCESS);
    EXPECT(refs, 0);
    EXPECT(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
    EXPECT(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
    /* aclFinalize drops every reference at once */
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    EXPECT(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
    expect_all_zero();
}

/* ------------------------------------------------------------------ saturation and overflow */

static uint64_t read_status(aclrtStream s, void *dev_status)
{
    uint8_t host[64];
    memset(host, 0xab, sizeof host);
    EXPECT(aclrtGetOverflowStatus(dev_status, 64, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, sizeof host, dev_status, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (size_t i = 8; i < sizeof host; ++i)
        EXPECT(host[i], 0);
    uint64_t word;
    memcpy(&word, host, sizeof word);
    return word;
}

static float reduce_one(aclrtStream s, float *dev, float a, float b)
{
    float pair[2] = {a, b};
    EXPECT(aclrtMemcpy(dev, sizeof pair, pair, sizeof pair, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT(aclrtReduceAsync(dev, dev + 1, sizeof(float), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
           ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(pair, sizeof pair, dev, sizeof pair, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return pair[0];
}

static void check_sat_mode_and_overflow(void)
{
    aclrtFloatOverflowMode mode;
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtGetDeviceSatMode(&mode), ACL_ERROR_RT_CONTEXT_NULL); /* no current device */
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtGetDeviceSatMode(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetDeviceSatMode(&mode), ACL_SUCCESS);
    EXPECT(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
    EXPECT(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtSetDeviceSatMode", "mode (2)");

    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    float *dev;
    void *status;
    EXPECT(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&status, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    uint32_t flag = 7;
    EXPECT(aclrtGetStreamOverflowSwitch(s, &flag), ACL_SUCCESS);
    EXPECT(flag, 0);
    EXPECT(aclrtSetStreamOverflowSwitch(s, 2), ACL_ERROR_INVALID_PARAM);

    /* overflow check off: inf, no status */
    EXPECT_TRUE(isinf(reduce_one(s, dev, FLT_MAX, FLT_MAX)));
    EXPECT(read_status(s, status), 0);
    /* check on, Inf/NaN mode: inf and the status set until reset */
    EXPECT(aclrtSetStreamOverflowSwitch(s, 1), ACL_SUCCESS);
    EXPECT(aclrtGetStreamOverflowSwitch(s, &flag), ACL_SUCCESS);
    EXPECT(flag, 1);
    EXPECT(reduce_one(s, dev, 1.0f, 2.0f), 3);
    EXPECT(read_status(s, status), 0);
    EXPECT_TRUE(isinf(reduce_one(s, dev, -FLT_MAX, -FLT_MAX)));
    EXPECT(read_status(s, status), 1);
    EXPECT(reduce_one(s, dev, 1.0f, 2.0f), 3);
    EXPECT(read_status(s, status), 1); /* sticky */
    EXPECT(aclrtResetOverflowStatus(s), ACL_SUCCESS);
    EXPECT(read_status(s, status), 0);
    /* saturation mode: the largest finite value of the result's sign */
    EXPECT(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION), ACL_SUCCESS);
    EXPECT(aclrtGetDeviceSatMode(&mode), ACL_SUCCESS);
    EXPECT(mode, ACL_RT_OVERFLOW_MODE_SATURATION);
    EXPECT_TRUE(reduce_one(s, dev, -FLT_MAX, -FLT_MAX) == -FLT_MAX);
    EXPECT(read_status(s, status), 1);
    EXPECT(aclrtNpuClearFloatOverFlowStatus(0, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(read_status(s, status), 0);
    /* inf operands are no overflow */
    EXPECT_TRUE(isinf(reduce_one(s, dev, INFINITY, 1.0f)));
    EXPECT(read_status(s, status), 0);
    /* the other spellings read the same status */
    EXPECT_TRUE(reduce_one(s, dev, FLT_MAX, FLT_MAX) == FLT_MAX);
    uint64_t word = 0;
    EXPECT(aclrtGetFloatOverflowStatus(status, 8, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(&word, 8, status, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(word, 1);
    EXPECT(aclrtNpuGetFloatOverFlowStatus(status, 8, 0, s), ACL_SUCCESS);
    EXPECT(aclrtResetFloatOverflowStatus(s), ACL_SUCCESS);
    EXPECT(read_status(s, status), 0);
    /* arguments */
    EXPECT(aclrtGetOverflowStatus(NULL, 64, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetOverflowStatus(status, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    uint8_t host[64];
    EXPECT(aclrtGetOverflowStatus(host, 64, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtGetOverflowStatus", "outputAddr", "device allocation");

    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    EXPECT(aclrtFree(status), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ stream attributes */

static void check_stream_attributes(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStreamWithConfig(&s, 3, 0), ACL_SUCCESS);
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_SUCCESS);
    EXPECT(v.streamPriority, 3);
    v.streamPriority = 5;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_SUCCESS);
    uint32_t prio = 0;
    EXPECT(aclrtStreamGetPriority(s, &prio), ACL_SUCCESS);
    EXPECT(prio, 5);
    v.streamPriority = 8;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_RT_PARAM_INVALID);

    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_SUCCESS);
    EXPECT(v.failureMode, ACL_CONTINUE_ON_FAILURE);
    v.failureMode = ACL_STOP_ON_FAILURE;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_SUCCESS);
    memset(&v, 0, sizeof v);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_SUCCESS);
    EXPECT(v.failureMode, ACL_STOP_ON_FAILURE);
    v.failureMode = 5;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_ERROR_INVALID_PARAM);

    memset(&v, 0, sizeof v);
    v.overflowSwitch = 1;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v), ACL_SUCCESS);
    uint32_t flag = 0;
    EXPECT(aclrtGetStreamOverflowSwitch(s, &flag), ACL_SUCCESS);
    EXPECT(flag, 1);
    EXPECT(aclrtSetStreamOverflowSwitch(s, 0), ACL_SUCCESS);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v), ACL_SUCCESS);
    EXPECT(v.overflowSwitch, 0);

    v.userCustomTag = 0xbeef;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), ACL_SUCCESS);
    v.cacheOpInfoSwitch = 1;
    EXPECT(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v), ACL_SUCCESS);
    memset(&v, 0, sizeof v);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), ACL_SUCCESS);
    EXPECT(v.userCustomTag, 0xbeef);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v), ACL_SUCCESS);
    EXPECT(v.cacheOpInfoSwitch, 1);
    /* the default stream (NULL) has its own values */
    EXPECT(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), ACL_SUCCESS);
    EXPECT(v.userCustomTag, 0);

    EXPECT(aclrtSetStreamAttribute(s, (aclrtStreamAttr)0, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtSetStreamAttribute", "stmAttrType (0)");
    EXPECT(aclrtGetStreamAttribute(s, (aclrtStreamAttr)6, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_RT_INVALID_HANDLE);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ timeouts, parameters, ids */

static void check_timeouts_params_ids(void)
{
    uint64_t us = 0;
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtGetOpTimeOutInterval(&us), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtGetOpTimeOutInterval(&us), ACL_SUCCESS);
    EXPECT(us, 1);
    EXPECT(aclrtSetOpWaitTimeout(30), ACL_SUCCESS);
    uint32_t ms = 1;
    EXPECT(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    EXPECT(ms, 0);
    EXPECT(aclrtSetOpExecuteTimeOut(2), ACL_SUCCESS);
    EXPECT(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    EXPECT(ms, 2000);
    EXPECT(aclrtSetOpExecuteTimeOutWithMs(1500), ACL_SUCCESS);
    EXPECT(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    EXPECT(ms, 1500);
    uint64_t actual = 0;
    EXPECT(aclrtSetOpExecuteTimeOutV2(250000, &actual), ACL_SUCCESS);
    EXPECT(actual, 250000);
    EXPECT(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
    EXPECT(ms, 250);
    EXPECT(aclrtSetOpExecuteTimeOutV2(0, &actual), ACL_SUCCESS);
    EXPECT_TRUE(actual == UINT64_MAX);
    EXPECT(aclrtSetOpExecuteTimeOutV2(1, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetOpExecuteTimeout(NULL), ACL_ERROR_INVALID_PARAM);

    int64_t value = 0;
    EXPECT(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    EXPECT(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    EXPECT(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
    EXPECT(value, 1);
    EXPECT(aclrtSetSysParamOpt((aclSysParamOpt)9, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtSetSysParamOpt", "opt (9)");

    int32_t out = -1;
    EXPECT(aclrtGetLogicDevIdByUserDevId(1, &out), ACL_SUCCESS);
    EXPECT(out, 1);
    EXPECT(aclrtGetPhyDevIdByLogicDevId(0, &out), ACL_SUCCESS);
    EXPECT(out, 0);
    EXPECT(aclrtGetUserDevIdByPhyDevId(1, &out), ACL_SUCCESS);
    EXPECT(aclrtGetUserDevIdByLogicDevId(0, &out), ACL_SUCCESS);
    EXPECT(aclrtGetLogicDevIdByPhyDevId(0, &out), ACL_SUCCESS);
    EXPECT(aclrtGetPhyDevIdByUserDevId(1, &out), ACL_SUCCESS);
    EXPECT(out, 1);
    EXPECT(aclrtGetPhyDevIdByUserDevId(2, &out), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_MSG("aclrtGetPhyDevIdByUserDevId", "userDevId (2)");
    EXPECT(aclrtGetLogicDevIdByUserDevId(-1, &out), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtGetLogicDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM);

    int32_t pid = 0;
    EXPECT(aclrtDeviceGetBareTgid(&pid), ACL_SUCCESS);
    EXPECT(pid, getpid());
    EXPECT(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR), ACL_SUCCESS);
    EXPECT(aclrtSetTsDevice(ACL_TS_ID_RESERVED), ACL_ERROR_INVALID_PARAM);

    void *p = NULL;
    EXPECT(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_SUCCESS);
    EXPECT(aclrtMemset(p, 256, 7, 256), ACL_SUCCESS);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    EXPECT(aclrtMallocHostWithCfg(&p, 256, NULL), ACL_SUCCESS);
    EXPECT(aclrtFreeHost(p), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ external allocators */

typedef struct user_allocator {
    int allocs, frees;
    char arena[4096];
    size_t used;
} user_allocator;

typedef struct user_block {
    void *addr;
} user_block;

static user_block g_blocks[8];

static void *ua_alloc(aclrtAllocator allocator, size_t size)
{
    user_allocator *a = allocator;
    user_block *b = &g_blocks[a->allocs++];
    b->addr = a->arena + a->used;
    a->used += size;
    return b;
}

static void ua_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    user_allocator *a = allocator;
    ((user_block *)block)->addr = NULL;
    a->frees++;
}

static void *ua_advise(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    (void)addr;
    return ua_alloc(allocator, size);
}

static void *ua_addr(aclrtAllocatorBlock block)
{
    return ((user_block *)block)->addr;
}

static void check_allocator_registry(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    static user_allocator ua;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    EXPECT_TRUE(d != NULL);
    EXPECT(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtAllocatorRegister", "allocatorDesc->obj");
    EXPECT(aclrtAllocatorSetObjToDesc(d, &ua), ACL_SUCCESS);
    EXPECT(aclrtAllocatorSetAllocFuncToDesc(d, ua_alloc), ACL_SUCCESS);
    EXPECT(aclrtAllocatorSetFreeFuncToDesc(d, ua_free), ACL_SUCCESS);
    EXPECT(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtAllocatorRegister", "allocatorDesc->getAddrFromBlockFunc");
    EXPECT(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, ua_addr), ACL_SUCCESS);
    EXPECT(aclrtAllocatorSetAllocAdviseFuncToDesc(NULL, ua_advise), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtAllocatorSetAllocFuncToDesc", "func");
    EXPECT(aclrtAllocatorRegister(NULL, d), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtAllocatorRegister(s, d), ACL_SUCCESS); /* the advise callback is optional */

    aclrtAllocatorDesc got_d = NULL;
    aclrtAllocator got_obj = NULL;
    aclrtAllocatorAllocFunc got_alloc = NULL;
    aclrtAllocatorFreeFunc got_free = NULL;
    aclrtAllocatorAllocAdviseFunc got_advise = ua_advise;
    aclrtAllocatorGetAddrFromBlockFunc got_addr = NULL;
    EXPECT(aclrtAllocatorGetByStream(s, &got_d, &got_obj, &got_alloc, &got_free, &got_advise, &got_addr), ACL_SUCCESS);
    EXPECT_TRUE(got_d == d && got_obj == &ua && got_alloc == ua_alloc && got_free == ua_free);
    EXPECT_TRUE(got_advise == NULL && got_addr == ua_addr);
    /* a consumer allocating for work on the stream, as CANN's libraries do */
    aclrtAllocatorBlock blk = got_alloc(got_obj, 128);
    void *mem = got_addr(blk);
    EXPECT_TRUE(mem == ua.arena);
    got_free(got_obj, blk);
    EXPECT(ua.allocs, 1);
    EXPECT(ua.frees, 1);

    /* the registry keeps the callbacks of registration time; re-registering replaces them */
    EXPECT(aclrtAllocatorSetAllocAdviseFuncToDesc(d, ua_advise), ACL_SUCCESS);
    EXPECT(aclrtAllocatorGetByStream(s, &got_d, NULL, NULL, NULL, &got_advise, NULL), ACL_SUCCESS);
    EXPECT_TRUE(got_advise == NULL);
    EXPECT(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    EXPECT(aclrtAllocatorGetByStream(s, &got_d, NULL, NULL, NULL, &got_advise, NULL), ACL_SUCCESS);
    EXPECT_TRUE(got_advise == ua_advise);

    EXPECT(aclrtAllocatorGetByStream(s, NULL, NULL, NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    EXPECT(aclrtAllocatorGetByStream(s, &got_d, NULL, NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtAllocatorGetByStream", "not registered");
    EXPECT(aclrtAllocatorUnregister(s), ACL_SUCCESS); /* unregistering twice is no error */
    EXPECT(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    EXPECT(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ aclrtReduceAsync */

static void check_reduce_arguments_and_order(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    int32_t *d;
    EXPECT(aclrtMalloc((void **)&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    int32_t init[16];
    for (int i = 0; i < 16; ++i)
        init[i] = i;
    EXPECT(aclrtMemcpy(d, sizeof init, init, sizeof init, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    const aclrtReduceKind sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;

    EXPECT(aclrtReduceAsync(NULL, d + 8, 32, sum, ACL_INT32, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtReduceAsync", "dst");
    EXPECT(aclrtReduceAsync(d, NULL, 32, sum, ACL_INT32, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(d, d + 8, 32, sum, ACL_INT32, s, d), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtReduceAsync", "reserve");
    EXPECT(aclrtReduceAsync(d, d + 8, 32, sum, ACL_DOUBLE, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtReduceAsync", "type (11)");
    EXPECT(aclrtReduceAsync(d, d + 8, 0, sum, ACL_INT32, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(d, d + 8, 32, (aclrtReduceKind)9, ACL_INT32, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(d, d + 8, 32, (aclrtReduceKind)14, ACL_INT32, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtReduceAsync(d, d + 8, 32, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_INT32, s, NULL),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_MSG("aclrtReduceAsync", "EQUAL");
    EXPECT(aclrtReduceAsync(d, d + 8, 30, sum, ACL_INT32, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtReduceAsync", "whole number");
    EXPECT(aclrtReduceAsync(d, init, 32, sum, ACL_INT32, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtReduceAsync", "src", "not device memory");
    EXPECT(aclrtReduceAsync(d + 8, d + 8, 64, sum, ACL_INT32, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtReduceAsync", "runs past the end");

    /* stream-ordered: queued behind a held task, done by the synchronize */
    close_gate();
    EXPECT(hg_stream_submit(s, "gate", gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtReduceAsync(d, d + 8, 32, sum, ACL_INT32, s, NULL), ACL_SUCCESS);
    sleep_ms(20);
    int32_t host[16];
    EXPECT(aclrtMemcpy(host, sizeof host, d, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(host[0], 0); /* not yet */
    open_gate();
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, sizeof host, d, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 8; ++i)
        EXPECT(host[i], i + (i + 8));
    for (int i = 8; i < 16; ++i)
        EXPECT(host[i], i);
    EXPECT(aclrtFree(d), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ pointers, uuids, stream waits */

static void check_pointers_uuid_waits(void)
{
    setup();
    void *dev, *host;
    int plain = 0;
    EXPECT(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMallocHost(&host, 128), ACL_SUCCESS);
    aclrtPtrAttributes a;
    EXPECT(aclrtPointerGetAttributes((char *)dev + 5, &a), ACL_SUCCESS);
    EXPECT(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
    EXPECT(a.location.id, 0);
    EXPECT_TRUE(a.pageSize >= 4096);
    EXPECT(aclrtPointerGetAttributes(host, &a), ACL_SUCCESS);
    EXPECT(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT(aclrtPointerGetAttributes(&plain, &a), ACL_SUCCESS);
    EXPECT(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    EXPECT(aclrtPointerGetAttributes(NULL, &a), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    EXPECT(aclrtFreeHost(host), ACL_SUCCESS);

    aclrtUuid u0, u1, again;
    EXPECT(aclrtDeviceGetUuid(0, &u0), ACL_SUCCESS);
    EXPECT(aclrtDeviceGetUuid(1, &u1), ACL_SUCCESS);
    EXPECT(aclrtDeviceGetUuid(0, &again), ACL_SUCCESS);
    EXPECT(memcmp(u0.bytes, again.bytes, 16), 0);
    EXPECT_TRUE(memcmp(u0.bytes, u1.bytes, 16) != 0);
    EXPECT(aclrtDeviceGetUuid(2, &u0), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtDeviceGetUuid(0, NULL), ACL_ERROR_INVALID_PARAM);

    /* waits with a timeout or flag order the streams as aclrtStreamWaitEvent does */
    aclrtStream a_s, b_s;
    aclrtEvent ev;
    EXPECT(aclrtCreateStream(&a_s), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&b_s), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&ev), ACL_SUCCESS);
    int32_t *d;
    EXPECT(aclrtMalloc((void **)&d, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMemset(d, 8, 0, 8), ACL_SUCCESS);
    int32_t ones[2] = {1, 1};
    close_gate();
    EXPECT(hg_stream_submit(a_s, "gate", gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtMemcpyAsync(d, 8, ones, 8, ACL_MEMCPY_HOST_TO_DEVICE, a_s), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(ev, a_s), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEventWithTimeout(b_s, ev, 1000), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEventWithFlag(b_s, ev, 0, ACL_EVENT_WAIT_DEFAULT), ACL_SUCCESS);
    EXPECT(aclrtReduceAsync(d, d + 1, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, b_s, NULL), ACL_SUCCESS);
    sleep_ms(20);
    open_gate();
    EXPECT(aclrtSynchronizeStream(b_s), ACL_SUCCESS);
    int32_t got[2];
    EXPECT(aclrtMemcpy(got, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(got[0], 2); /* the reduce ran after the copy it waited for */
    EXPECT(aclrtStreamWaitEventWithFlag(b_s, ev, 5, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtStreamWaitEventWithFlag(b_s, ev, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_MSG("aclrtStreamWaitEventWithFlag", "external events");
    EXPECT(aclrtStreamWaitEventWithFlag(b_s, ev, 0, 7), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtFree(d), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(ev), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(a_s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(b_s), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ memory pools */

static void check_memory_pools(void)
{
    setup();
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    props.maxSize = 1024;
    aclrtMemPool pool = NULL;
    EXPECT(aclrtMemPoolCreate(NULL, &props), ACL_ERROR_INVALID_PARAM);
    props.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    EXPECT(aclrtMemPoolCreate(&pool, &props), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMemPoolCreate", "poolProps->location.type");
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.reserved[3] = 1;
    EXPECT(aclrtMemPoolCreate(&pool, &props), ACL_ERROR_INVALID_PARAM);
    props.reserved[3] = 0;
    EXPECT(aclrtMemPoolCreate(&pool, &props), ACL_SUCCESS);

    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    void *a = NULL, *b = NULL, *c = NULL;
    EXPECT(aclrtMemPoolMallocAsync(&a, 600, pool, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemPoolMallocAsync(&a, 0, pool, s), ACL_SUCCESS);
    EXPECT_TRUE(a == NULL);
    EXPECT(aclrtMemPoolMallocAsync(&a, 600, pool, s), ACL_SUCCESS);
    EXPECT(aclrtMemPoolMallocAsync(&b, 300, pool, s), ACL_SUCCESS);
    EXPECT(aclrtMemPoolMallocAsync(&c, 200, pool, s), ACL_ERROR_RT_MEMORY_ALLOCATION); /* past maxSize */
    EXPECT_MSG("aclrtMemPoolMallocAsync", "maxSize");
    uint64_t v = 0;
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v), ACL_SUCCESS);
    EXPECT(v, 900);
    /* stream-ordered use: the memory is device memory the stream's work may use */
    EXPECT(aclrtMemsetAsync(a, 600, 3, 600, s), ACL_SUCCESS);
    EXPECT(aclrtMemPoolFreeAsync(a, s), ACL_SUCCESS);
    EXPECT(aclrtMemPoolFreeAsync(a, s), ACL_ERROR_RT_PARAM_INVALID); /* once only */
    EXPECT_MSG("aclrtMemPoolFreeAsync", "not allocated from a memory pool");
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v), ACL_SUCCESS);
    EXPECT(v, 300);
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v), ACL_SUCCESS);
    EXPECT(v, 900);
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT, &v), ACL_SUCCESS);
    EXPECT(v, 300);
    v = 5;
    EXPECT(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v), ACL_ERROR_RT_PARAM_INVALID);
    v = 0;
    EXPECT(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v), ACL_SUCCESS);
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v), ACL_SUCCESS);
    EXPECT(v, 300);
    EXPECT(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v), ACL_ERROR_RT_PARAM_INVALID);
    v = 1 << 20;
    EXPECT(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v), ACL_SUCCESS);
    v = 0;
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v), ACL_SUCCESS);
    EXPECT(v, 1 << 20);
    int32_t on = 1;
    EXPECT(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &on), ACL_SUCCESS);
    on = 0;
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &on), ACL_SUCCESS);
    EXPECT(on, 1);
    EXPECT(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)9, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemPoolTrimTo(pool, 0), ACL_SUCCESS);
    /* b is still out: it goes with the pool */
    EXPECT(aclrtMemPoolDestroy(pool), ACL_SUCCESS);
    EXPECT(aclrtMemPoolDestroy(pool), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemPoolTrimTo(pool, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ stream resource limits */

static void check_stream_res_limits(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    uint32_t dev_cube = 0, v = 0;
    EXPECT(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &dev_cube), ACL_SUCCESS);
    EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, dev_cube); /* the device's until set */
    EXPECT(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 4), ACL_SUCCESS);
    EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, 4);
    EXPECT(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, dev_cube + 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtSetStreamResLimit", "out of range");
    EXPECT(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamResLimit(s, (aclrtDevResLimitType)7, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, NULL), ACL_ERROR_INVALID_PARAM);

    /* a thread using the stream's resources sees its limits */
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, dev_cube);
    EXPECT(aclrtUseStreamResInCurrentThread(s), ACL_SUCCESS);
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, 4);
    EXPECT(aclrtUnuseStreamResInCurrentThread(s), ACL_SUCCESS);
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, dev_cube);
    EXPECT(aclrtUseStreamResInCurrentThread(s), ACL_SUCCESS);
    EXPECT(aclrtResetStreamResLimit(s), ACL_SUCCESS);
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, dev_cube);
    EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    EXPECT(v, dev_cube);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS); /* gone: the device's */
    EXPECT(v, dev_cube);
    teardown_all_freed();
}

/* `reduce <kind> <type> <bytes> <in> <out>`: in holds dst then src, `bytes` each. */
static int run_reduce_file(char **argv)
{
    int kind = atoi(argv[2]), type = atoi(argv[3]);
    size_t n = (size_t)strtoull(argv[4], NULL, 10);
    unsigned char *buf = malloc(2 * n);
    FILE *f = fopen(argv[5], "rb");
    if (!buf || !f || fread(buf, 1, 2 * n, f) != 2 * n)
        return 3;
    fclose(f);
    g_check = "reduce";
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    unsigned char *dev;
    EXPECT(aclrtMalloc((void **)&dev, 2 * n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(dev, 2 * n, buf, 2 * n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT(aclrtReduceAsync(dev, dev + n, n, (aclrtReduceKind)kind, (aclDataType)type, s, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(buf, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
    f = fopen(argv[6], "wb");
    if (!f || fwrite(buf, 1, n, f) != n)
        return 3;
    fclose(f);
    free(buf);
    printf("PASS reduce\n");
    return 0;
}

static const named_check CHECKS[] = {
    {"init_finalize_callbacks", check_init_finalize_callbacks},
    {"finalize_reference", check_finalize_reference},
    {"sat_mode_and_overflow", check_sat_mode_and_overflow},
    {"stream_attributes", check_stream_attributes},
    {"timeouts_params_ids", check_timeouts_params_ids},
    {"allocator_registry", check_allocator_registry},
    {"reduce_arguments_and_order", check_reduce_arguments_and_order},
    {"pointers_uuid_waits", check_pointers_uuid_waits},
    {"memory_pools", check_memory_pools},
    {"stream_res_limits", check_stream_res_limits},
};

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "reduce") == 0)
        return run_reduce_file(argv);
    int rc = run_named_check(argc, argv, CHECKS, sizeof CHECKS / sizeof CHECKS[0]);
    if (rc >= 0)
        return rc;
    fprintf(stderr, "usage: %s --list | <check> | reduce <kind> <type> <bytes> <in> <out>\n", argv[0]);
    return 2;
}
