/* A profiled sample run through acl_prof.h (libmsprofiler): an operator on each of two streams
 * with an event between them, copies both ways, a marker on a stream, a mark, a push/pop and a
 * range; then the profiler's refusals and misuse answers.  tests/test_profiling.py checks the
 * timeline it writes.
 *
 *   prof_sample <result folder>     prints "PASS prof_sample" when every call answered as expected
 *   prof_sample --off <folder>      the same run without the profiler (nothing may be written)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "aclnnop/aclnn_hardtanh_backward.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"

static int g_failed;

#define EXPECT(call, want)                                                                                   \
    do {                                                                                                     \
        long long got_ = (long long)(call);                                                                  \
        if (got_ != (long long)(want)) {                                                                     \
            printf("FAIL %s:%d: %s = %lld, expected %lld (%s)\n", __FILE__, __LINE__, #call, got_,           \
                   (long long)(want), aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                     \
            g_failed = 1;                                                                                    \
        }                                                                                                    \
    } while (0)

#define EXPECT_TRUE(cond)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                           \
            g_failed = 1;                                                                                    \
        }                                                                                                    \
    } while (0)

#define N 64

static aclTensor *tensor(void *dev)
{
    int64_t shape[2] = {8, 8}, strides[2] = {8, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, dev);
}

/* out = hardtanh_backward(grad, x) on stream: phase 1, workspace, phase 2. */
static void hardtanh_backward(void *grad, void *x, void *out, aclrtStream stream)
{
    aclTensor *g = tensor(grad), *t = tensor(x), *o = tensor(out);
    float lo_v = -1.0f, hi_v = 1.0f;
    aclScalar *lo = aclCreateScalar(&lo_v, ACL_FLOAT), *hi = aclCreateScalar(&hi_v, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT(aclnnHardtanhBackwardGetWorkspaceSize(g, t, lo, hi, o, &ws, &ex), ACL_SUCCESS);
    void *work = NULL;
    if (ws)
        EXPECT(aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclnnHardtanhBackward(work, ws, ex, stream), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    if (work)
        aclrtFree(work);
    aclDestroyTensor(g);
    aclDestroyTensor(t);
    aclDestroyTensor(o);
    aclDestroyScalar(lo);
    aclDestroyScalar(hi);
}

static void hardsigmoid_backward(void *grad, void *x, void *out, aclrtStream stream)
{
    aclTensor *g = tensor(grad), *t = tensor(x), *o = tensor(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT(aclnnHardsigmoidBackwardGetWorkspaceSize(g, t, o, &ws, &ex), ACL_SUCCESS);
    EXPECT(ws, 0);
    EXPECT(aclnnHardsigmoidBackward(NULL, 0, ex, stream), ACL_SUCCESS);
    aclDestroyTensor(g);
    aclDestroyTensor(t);
    aclDestroyTensor(o);
}

/* The thread's error text (read once: reading clears it) names func and says what. */
static int says(const char *func, const char *what)
{
    const char *m = aclGetRecentErrMsg();
    if (m == NULL || strstr(m, func) == NULL || strstr(m, what) == NULL) {
        printf("error text: %s\n", m ? m : "(none)");
        return 0;
    }
    return 1;
}

/* The refusals and misuse answers, the same with the profiler on or off. */
static void misuse(void)
{
    EXPECT(aclprofModelSubscribe(1, NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
    EXPECT_TRUE(says("aclprofModelSubscribe", "loads no offline models"));
    EXPECT_TRUE(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, NULL) == NULL);
    EXPECT(aclprofGetOpStart(NULL, 0, 0), 0);
    EXPECT(aclprofGetOpFlag(NULL, 0, 0), ACL_SUBSCRIBE_NONE);
    EXPECT(aclprofRangePushEx(NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
    uint32_t bad_dev = 7;
    EXPECT_TRUE(aclprofCreateConfig(&bad_dev, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME) == NULL);
    EXPECT_TRUE(says("aclprofCreateConfig", "deviceIdList[0] (7) is not a device id"));
    uint32_t dev0 = 0;
    EXPECT_TRUE(aclprofCreateConfig(&dev0, 1, ACL_AICORE_NONE, NULL, 1ull << 40) == NULL);
    EXPECT_TRUE(aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME) == NULL);
    EXPECT(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5), ACL_SUCCESS);
    EXPECT(aclprofSetConfig(ACL_PROF_ARGS_MAX, "x", 1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofInit("x", 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofFinalize(), ACL_ERROR_UNINITIALIZE);
    size_t nfeat = 99;
    void *feat = NULL;
    EXPECT(aclprofGetSupportedFeatures(&nfeat, &feat), ACL_SUCCESS);
    EXPECT(nfeat, 0);
    EXPECT(aclprofStr2Id("aclnnHardtanhBackward"), aclprofStr2Id("aclnnHardtanhBackward"));
    EXPECT_TRUE(aclprofStr2Id("a") != aclprofStr2Id("b"));
}

int main(int argc, char **argv)
{
    int off = argc == 3 && strcmp(argv[1], "--off") == 0;
    if (argc != 2 && !off) {
        fprintf(stderr, "usage: prof_sample [--off] <result folder>\n");
        return 2;
    }
    const char *dir = argv[argc - 1];
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    misuse();

    aclprofConfig *config = NULL;
    void *stamp = aclprofCreateStamp();
    EXPECT(aclprofSetStampTraceMessage(stamp, "sample run", 10), ACL_SUCCESS);
    void *range_stamp = aclprofCreateStamp();
    EXPECT(aclprofSetStampTraceMessage(range_stamp, "two streams", 11), ACL_SUCCESS);
    if (!off) {
        EXPECT(aclprofInit(dir, strlen(dir)), ACL_SUCCESS);
        EXPECT(aclprofInit(dir, strlen(dir)), ACL_ERROR_REPEAT_INITIALIZE);
        uint32_t devices[1] = {0};
        config = aclprofCreateConfig(devices, 1, ACL_AICORE_PIPE_UTILIZATION, NULL,
                                     ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX |
                                         ACL_PROF_TASK_MEMORY);
        EXPECT_TRUE(config != NULL);
        EXPECT(aclprofStop(config), ACL_ERROR_PROF_NOT_RUN);
        EXPECT(aclprofStart(config), ACL_SUCCESS);
        EXPECT(aclprofStart(config), ACL_ERROR_PROF_ALREADY_RUN);
    }
    EXPECT(aclprofPush(stamp), ACL_SUCCESS);
    uint32_t range = 0;
    EXPECT(aclprofRangeStart(range_stamp, &range), ACL_SUCCESS);

    aclrtStream a = NULL, b = NULL;
    aclrtEvent ev = NULL;
    EXPECT(aclrtCreateStream(&a), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&b), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&ev), ACL_SUCCESS);
    float host[N], hx[N], back[N];
    for (int i = 0; i < N; ++i) {
        host[i] = (float)i * 0.25f;
        hx[i] = (float)(i % 5 - 2) * 0.5f;
    }
    size_t bytes = sizeof host;
    void *grad = NULL, *x = NULL, *mid = NULL, *out = NULL;
    EXPECT(aclrtMalloc(&grad, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&mid, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&out, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);

    /* stream a: copy in, an operator, record; stream b: wait, an operator, copy out, a marker */
    EXPECT(aclrtMemcpyAsync(grad, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, a), ACL_SUCCESS);
    EXPECT(aclrtMemcpyAsync(x, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE, a), ACL_SUCCESS);
    hardtanh_backward(grad, x, mid, a);
    EXPECT(aclrtRecordEvent(ev, a), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(b, ev), ACL_SUCCESS);
    hardsigmoid_backward(mid, x, out, b);
    EXPECT(aclrtMemcpyAsync(back, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST, b), ACL_SUCCESS);
    EXPECT(aclprofMarkEx("copied back", 11, b), ACL_SUCCESS);
    EXPECT(aclprofMarkEx("copied back", 3, b), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSynchronizeStream(b), ACL_SUCCESS);
    EXPECT(aclprofMark(stamp), ACL_SUCCESS);
    EXPECT(aclprofMark(NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT(aclprofRangeStop(range), ACL_SUCCESS);
    EXPECT(aclprofPop(), ACL_SUCCESS);
    if (!off) {
        EXPECT(aclprofRangeStop(range), ACL_ERROR_INVALID_PARAM);
        EXPECT(aclprofPop(), ACL_ERROR_INVALID_PARAM);
    }
    aclrtFree(grad);
    aclrtFree(x);
    aclrtFree(mid);
    aclrtFree(out);
    EXPECT(aclrtDestroyEvent(ev), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(a), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(b), ACL_SUCCESS);
    if (!off) {
        EXPECT(aclprofStop(config), ACL_SUCCESS);
        EXPECT(aclprofDestroyConfig(config), ACL_SUCCESS);
        EXPECT(aclprofFinalize(), ACL_SUCCESS);
    }
    aclprofDestroyStamp(stamp);
    aclprofDestroyStamp(range_stamp);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);

    /* the values made it through: hardsigmoid_backward(hardtanh_backward(g, x), x) */
    for (int i = 0; i < N; ++i) {
        float g = host[i], xv = hx[i];
        float m = (xv <= -1.0f || xv >= 1.0f) ? 0.0f : g;
        float want = m / 6.0f; /* |x| < 3 throughout */
        float err = back[i] - want;
        if (err < -1e-6f * (1.0f + want) || err > 1e-6f * (1.0f + want)) {
            printf("FAIL value %d: %g, expected %g\n", i, (double)back[i], (double)want);
            g_failed = 1;
            break;
        }
    }
    if (!g_failed)
        printf("PASS prof_sample\n");
    return g_failed;
}
