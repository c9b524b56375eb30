/*
 * libmsprofiler.so: CANN's profiling API (acl/acl_prof.h) over the embedded runtime.
 *
 * This library checks arguments, keeps the configs, stamps and step infos, and drives the
 * recorder that lives in libascendcl (runtime/prof.c, through hg_prof.h: the hooks it feeds
 * sit in libascendcl's own hot paths, see there).  Failing calls return CANN's profiler
 * codes with aclGetRecentErrMsg's text naming the call and the rule broken.  What has no
 * meaning on the host (the subscription to offline models' operator data: the embedded
 * runtime loads no models) answers ACL_ERROR_FEATURE_UNSUPPORTED, saying why.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "hg_prof.h"

/* Stamps carry messages of up to this many bytes (without the '\0'), as CANN's. */
#define HG_STAMP_MSG_CAP 128u
#define HG_PROF_PATH_MAX 4096u
#define HG_CONFIG_MAX 256u

#define HG_CONFIG_MAGIC 0x46435048u /* "HPCF" */
#define HG_STAMP_MAGIC 0x54535048u  /* "HPST" */
#define HG_STEP_MAGIC 0x50535048u   /* "HPSP" */

struct aclprofConfig {
    uint32_t magic;
    uint64_t dev_mask;
    uint32_t ndev;
    aclprofAicoreMetrics metrics;
    uint64_t types;
};

typedef struct hg_stamp {
    uint32_t magic;
    char msg[HG_STAMP_MSG_CAP + 1u];
} hg_stamp;

struct aclprofStepInfo {
    uint32_t magic;
    uint64_t step;
};

/* Every ACL_PROF_* bit of acl_prof.h. */
#define HG_PROF_KNOWN_BITS                                                                                      \
    (ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU | ACL_PROF_L2CACHE |    \
     ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE | ACL_PROF_MSPROFTX | ACL_PROF_RUNTIME_API |                \
     ACL_PROF_GE_API_L0 | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_MEMORY | ACL_PROF_TASK_TIME_L2 |               \
     ACL_PROF_OP_ATTR | ACL_PROF_TASK_TIME_L3 | ACL_PROF_GE_API_L1 | ACL_PROF_API_STATS)
/* The bits that ask for the runtime's tasks (and their launches). */
#define HG_PROF_TASK_BITS                                                                                       \
    (ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME_L2 |                   \
     ACL_PROF_TASK_TIME_L3 | ACL_PROF_RUNTIME_API | ACL_PROF_AICORE_METRICS | ACL_PROF_OP_ATTR |               \
     ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE)

static unsigned what_of(uint64_t types)
{
    unsigned what = 0;
    if (types & HG_PROF_TASK_BITS)
        what |= HG_PROF_TASKS;
    if (types & ACL_PROF_TASK_MEMORY)
        what |= HG_PROF_MEMORY;
    if (types & ACL_PROF_MSPROFTX)
        what |= HG_PROF_TX;
    return what;
}

/* ------------------------------------------------------------------ session */

MSVP_PROF_API aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    const char *func = "aclprofInit";
    if (profilerResultPath == NULL) {
        hg_set_error(func, "profilerResultPath is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (length == 0 || length > HG_PROF_PATH_MAX) {
        hg_set_error(func, "length (%zu) must be in [1, %u]", length, HG_PROF_PATH_MAX);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (strnlen(profilerResultPath, length + 1u) != length) {
        hg_set_error(func, "length (%zu) is not the length of profilerResultPath (%zu characters)", length,
                     strnlen(profilerResultPath, HG_PROF_PATH_MAX + 1u));
        return ACL_ERROR_INVALID_PARAM;
    }
    return hg_prof_init(func, profilerResultPath);
}

MSVP_PROF_API aclError aclprofFinalize(void)
{
    return hg_prof_finalize("aclprofFinalize");
}

static bool config_ok(const char *func, const aclprofConfig *c)
{
    if (c == NULL) {
        hg_set_error(func, "profilerConfig is NULL");
        return false;
    }
    if (c->magic != HG_CONFIG_MAGIC) {
        hg_set_error(func, "profilerConfig (%p) is not a live config of aclprofCreateConfig", (const void *)c);
        return false;
    }
    return true;
}

MSVP_PROF_API aclError aclprofStart(const aclprofConfig *profilerConfig)
{
    const char *func = "aclprofStart";
    if (!config_ok(func, profilerConfig))
        return ACL_ERROR_INVALID_PARAM;
    return hg_prof_start(func, what_of(profilerConfig->types), profilerConfig->dev_mask);
}

MSVP_PROF_API aclError aclprofStop(const aclprofConfig *profilerConfig)
{
    const char *func = "aclprofStop";
    if (!config_ok(func, profilerConfig))
        return ACL_ERROR_INVALID_PARAM;
    return hg_prof_stop(func);
}

MSVP_PROF_API aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                 aclprofAicoreMetrics aicoreMetrics,
                                                 const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig)
{
    const char *func = "aclprofCreateConfig";
    if (deviceNums != 0 && deviceIdList == NULL) {
        hg_set_error(func, "deviceIdList is NULL but deviceNums is %u", (unsigned)deviceNums);
        return NULL;
    }
    if (aicoreEvents != NULL) {
        hg_set_error(func, "aicoreEvents must be NULL");
        return NULL;
    }
    if (dataTypeConfig & ~(uint64_t)HG_PROF_KNOWN_BITS) {
        hg_set_error(func, "dataTypeConfig (0x%llx) has bits outside the ACL_PROF_* values (0x%llx)",
                     (unsigned long long)dataTypeConfig, (unsigned long long)HG_PROF_KNOWN_BITS);
        return NULL;
    }
    if (deviceNums == 0 && !(dataTypeConfig & ACL_PROF_MSPROFTX)) {
        hg_set_error(func, "deviceNums is 0: a config without devices records only ACL_PROF_MSPROFTX, which "
                     "dataTypeConfig (0x%llx) does not ask for", (unsigned long long)dataTypeConfig);
        return NULL;
    }
    switch (aicoreMetrics) {
    case ACL_AICORE_ARITHMETIC_UTILIZATION:
    case ACL_AICORE_PIPE_UTILIZATION:
    case ACL_AICORE_MEMORY_BANDWIDTH:
    case ACL_AICORE_L0B_AND_WIDTH:
    case ACL_AICORE_RESOURCE_CONFLICT_RATIO:
    case ACL_AICORE_MEMORY_UB:
    case ACL_AICORE_L2_CACHE:
    case ACL_AICORE_PIPE_EXECUTE_UTILIZATION:
    case ACL_AICORE_MEMORY_ACCESS:
    case ACL_AICORE_NONE:
        break;
    default:
        hg_set_error(func, "aicoreMetrics (%d) is not an aclprofAicoreMetrics value", (int)aicoreMetrics);
        return NULL;
    }
    uint32_t count = 0;
    if (deviceNums != 0 && aclrtGetDeviceCount(&count) != ACL_SUCCESS) {
        hg_set_error(func, "cannot count the devices (aclrtGetDeviceCount failed)");
        return NULL;
    }
    if (deviceNums > count && deviceNums != 0) {
        hg_set_error(func, "deviceNums (%u) is more than the %u devices", (unsigned)deviceNums, (unsigned)count);
        return NULL;
    }
    uint64_t mask = 0;
    for (uint32_t i = 0; i < deviceNums; ++i) {
        uint32_t d = deviceIdList[i];
        if (d >= count || d >= 64u) {
            hg_set_error(func, "deviceIdList[%u] (%u) is not a device id in [0, %u)", (unsigned)i, (unsigned)d,
                         (unsigned)count);
            return NULL;
        }
        if ((mask >> d) & 1u) {
            hg_set_error(func, "deviceIdList[%u] (%u) is listed twice", (unsigned)i, (unsigned)d);
            return NULL;
        }
        mask |= 1ull << d;
    }
    aclprofConfig *c = calloc(1, sizeof *c);
    if (c == NULL) {
        hg_set_error(func, "out of host memory");
        return NULL;
    }
    c->magic = HG_CONFIG_MAGIC;
    c->dev_mask = mask;
    c->ndev = deviceNums;
    c->metrics = aicoreMetrics;
    c->types = dataTypeConfig;
    return c;
}

MSVP_PROF_API aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    const char *func = "aclprofDestroyConfig";
    if (!config_ok(func, profilerConfig))
        return ACL_ERROR_INVALID_PARAM;
    aclprofConfig *c = (aclprofConfig *)(uintptr_t)profilerConfig;
    c->magic = 0;
    free(c);
    return ACL_SUCCESS;
}

MSVP_PROF_API aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength)
{
    const char *func = "aclprofSetConfig";
    if (configType <= ACL_PROF_ARGS_MIN || configType >= ACL_PROF_ARGS_MAX || (int)configType == 2) {
        hg_set_error(func, "configType (%d) is not an aclprofConfigType value", (int)configType);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (config == NULL) {
        hg_set_error(func, "config is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (configLength > HG_CONFIG_MAX || strnlen(config, HG_CONFIG_MAX + 1u) != configLength) {
        hg_set_error(func, "configLength (%zu) must be the length of config and at most %u", configLength,
                     HG_CONFIG_MAX);
        return ACL_ERROR_INVALID_PARAM;
    }
    /* The settings tune the sampling of NPU and system hardware (storage limit, frequencies,
     * LLC modes, ...): the CPU timeline samples none of it, so a well-formed setting is
     * accepted and changes nothing. */
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ subscription */

static const char *const kNoModels = "not supported: the embedded runtime loads no offline models, so there is no "
                                     "model operator data to subscribe to (use aclprofStart/aclprofStop for a "
                                     "timeline)";

static aclError no_models(const char *func)
{
    hg_set_error(func, "%s", kNoModels);
    return ACL_ERROR_FEATURE_UNSUPPORTED;
}

MSVP_PROF_API aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig)
{
    (void)modelId;
    (void)profSubscribeConfig;
    return no_models("aclprofModelSubscribe");
}

MSVP_PROF_API aclError aclprofModelUnSubscribe(uint32_t modelId)
{
    (void)modelId;
    return no_models("aclprofModelUnSubscribe");
}

MSVP_PROF_API aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
                                                                   aclprofAicoreMetrics aicoreMetrics, void *fd)
{
    (void)timeInfoSwitch;
    (void)aicoreMetrics;
    (void)fd;
    no_models("aclprofCreateSubscribeConfig");
    return NULL;
}

MSVP_PROF_API aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
    (void)profSubscribeConfig;
    return no_models("aclprofDestroySubscribeConfig");
}

MSVP_PROF_API aclError aclprofGetOpDescSize(size_t *opDescSize)
{
    (void)opDescSize;
    return no_models("aclprofGetOpDescSize");
}

MSVP_PROF_API aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)opNumber;
    return no_models("aclprofGetOpNum");
}

MSVP_PROF_API aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opTypeLen;
    return no_models("aclprofGetOpTypeLen");
}

MSVP_PROF_API aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType,
                                        size_t opTypeLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opType;
    (void)opTypeLen;
    return no_models("aclprofGetOpType");
}

MSVP_PROF_API aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opNameLen;
    return no_models("aclprofGetOpNameLen");
}

MSVP_PROF_API aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName,
                                        size_t opNameLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opName;
    (void)opNameLen;
    return no_models("aclprofGetOpName");
}

/* The getters that answer a value: 0 (CANN's "failed") with the reason set. */
MSVP_PROF_API uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    no_models("aclprofGetOpStart");
    return 0;
}

MSVP_PROF_API uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    no_models("aclprofGetOpEnd");
    return 0;
}

MSVP_PROF_API uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    no_models("aclprofGetOpDuration");
    return 0;
}

MSVP_PROF_API size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    no_models("aclprofGetModelId");
    return 0;
}

MSVP_PROF_API aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    no_models("aclprofGetOpFlag");
    return ACL_SUBSCRIBE_NONE;
}

MSVP_PROF_API const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
                                                 aclprofSubscribeOpAttri attri)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)attri;
    no_models("aclprofGetOpAttriValue");
    return NULL;
}

/* ------------------------------------------------------------------ steps */

MSVP_PROF_API aclprofStepInfo *aclprofCreateStepInfo(void)
{
    aclprofStepInfo *s = calloc(1, sizeof *s);
    if (s == NULL) {
        hg_set_error("aclprofCreateStepInfo", "out of host memory");
        return NULL;
    }
    s->magic = HG_STEP_MAGIC;
    return s;
}

MSVP_PROF_API void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
    if (stepinfo == NULL || stepinfo->magic != HG_STEP_MAGIC)
        return;
    stepinfo->magic = 0;
    free(stepinfo);
}

MSVP_PROF_API aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream)
{
    const char *func = "aclprofGetStepTimestamp";
    if (stepInfo == NULL || stepInfo->magic != HG_STEP_MAGIC) {
        hg_set_error(func, "stepInfo is %s", stepInfo == NULL ? "NULL" : "not a live aclprofCreateStepInfo result");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (tag != ACL_STEP_START && tag != ACL_STEP_END) {
        hg_set_error(func, "tag (%d) is not ACL_STEP_START (0) or ACL_STEP_END (1)", (int)tag);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (tag == ACL_STEP_START)
        ++stepInfo->step;
    char msg[64];
    snprintf(msg, sizeof msg, "step %llu %s", (unsigned long long)stepInfo->step, tag == ACL_STEP_START ? "start" : "end");
    return hg_prof_mark_stream(func, msg, stream);
}

/* ------------------------------------------------------------------ msproftx */

static hg_stamp *stamp_of(const char *func, void *stamp)
{
    hg_stamp *s = stamp;
    if (s == NULL) {
        hg_set_error(func, "stamp is NULL");
        return NULL;
    }
    if (s->magic != HG_STAMP_MAGIC) {
        hg_set_error(func, "stamp (%p) is not a live stamp of aclprofCreateStamp", stamp);
        return NULL;
    }
    return s;
}

MSVP_PROF_API void *aclprofCreateStamp(void)
{
    hg_stamp *s = calloc(1, sizeof *s);
    if (s == NULL) {
        hg_set_error("aclprofCreateStamp", "out of host memory");
        return NULL;
    }
    s->magic = HG_STAMP_MAGIC;
    return s;
}

MSVP_PROF_API void aclprofDestroyStamp(void *stamp)
{
    hg_stamp *s = stamp;
    if (s == NULL || s->magic != HG_STAMP_MAGIC)
        return;
    s->magic = 0;
    free(s);
}

MSVP_PROF_API aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
    const char *func = "aclprofSetStampTraceMessage";
    hg_stamp *s = stamp_of(func, stamp);
    if (s == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (msg == NULL) {
        hg_set_error(func, "msg is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (msgLen == 0 || msgLen > HG_STAMP_MSG_CAP) {
        hg_set_error(func, "msgLen (%u) must be in [1, %u]", (unsigned)msgLen, HG_STAMP_MSG_CAP);
        return ACL_ERROR_INVALID_PARAM;
    }
    size_t n = strnlen(msg, msgLen);
    memcpy(s->msg, msg, n);
    s->msg[n] = '\0';
    return ACL_SUCCESS;
}

MSVP_PROF_API aclError aclprofMark(void *stamp)
{
    hg_stamp *s = stamp_of("aclprofMark", stamp);
    return s ? hg_prof_mark("aclprofMark", s->msg) : ACL_ERROR_INVALID_PARAM;
}

MSVP_PROF_API aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
    const char *func = "aclprofMarkEx";
    if (msg == NULL) {
        hg_set_error(func, "msg is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (msgLen == 0 || msgLen > HG_STAMP_MSG_CAP || strnlen(msg, msgLen + 1u) != msgLen) {
        hg_set_error(func, "msgLen (%zu) must be the length of msg, in [1, %u]", msgLen, HG_STAMP_MSG_CAP);
        return ACL_ERROR_INVALID_PARAM;
    }
    return hg_prof_mark_stream(func, msg, stream);
}

MSVP_PROF_API aclError aclprofPush(void *stamp)
{
    hg_stamp *s = stamp_of("aclprofPush", stamp);
    return s ? hg_prof_push("aclprofPush", s->msg) : ACL_ERROR_INVALID_PARAM;
}

MSVP_PROF_API aclError aclprofPop(void)
{
    return hg_prof_pop("aclprofPop");
}

MSVP_PROF_API aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
    const char *func = "aclprofRangeStart";
    hg_stamp *s = stamp_of(func, stamp);
    if (s == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (rangeId == NULL) {
        hg_set_error(func, "rangeId is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    return hg_prof_range_start(func, s->msg, rangeId);
}

MSVP_PROF_API aclError aclprofRangeStop(uint32_t rangeId)
{
    return hg_prof_range_stop("aclprofRangeStop", rangeId);
}

/* FNV-1a: the same message always gives the same id. */
MSVP_PROF_API uint64_t aclprofStr2Id(const char *message)
{
    if (message == NULL) {
        hg_set_error("aclprofStr2Id", "message is NULL");
        return 0;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)message; *p; ++p) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

static const char *const kNoAttrs = "not supported: aclprofEventAttributes is opaque in acl_prof.h and no call "
                                    "makes one (use aclprofPush/aclprofPop with a stamp)";

MSVP_PROF_API aclError aclprofRangePushEx(aclprofEventAttributes *attr)
{
    (void)attr;
    hg_set_error("aclprofRangePushEx", "%s", kNoAttrs);
    return ACL_ERROR_FEATURE_UNSUPPORTED;
}

MSVP_PROF_API aclError aclprofRangePop(void)
{
    hg_set_error("aclprofRangePop", "%s", kNoAttrs);
    return ACL_ERROR_FEATURE_UNSUPPORTED;
}

/* ------------------------------------------------------------------ features */

static aclError features(const char *func, size_t *featuresSize, void **featuresData)
{
    if (featuresSize == NULL || featuresData == NULL || *featuresData != NULL) {
        hg_set_error(func, "%s", featuresSize == NULL ? "featuresSize is NULL"
                                 : featuresData == NULL ? "featuresData is NULL"
                                                        : "*featuresData must be NULL (the list is returned there)");
        return ACL_ERROR_INVALID_PARAM;
    }
    /* The optional framework features (operator attributes, memory access, ...) come from
     * device-side collectors this runtime does not have: the list is empty. */
    *featuresSize = 0;
    return ACL_SUCCESS;
}

MSVP_PROF_API aclError aclprofGetSupportedFeatures(size_t *featuresSize, void **featuresData)
{
    return features("aclprofGetSupportedFeatures", featuresSize, featuresData);
}

MSVP_PROF_API aclError aclprofGetSupportedFeaturesV2(size_t *featuresSize, void **featuresData)
{
    return features("aclprofGetSupportedFeaturesV2", featuresSize, featuresData);
}
