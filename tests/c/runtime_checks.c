/* Behaviour checks of the embedded runtime layer (libascendcl), one per name:
 *     runtime_checks <name>      run one check, print "PASS <name>" and exit 0
 *     runtime_checks --list      print the names
 *     runtime_checks bench [N]   submit+synchronize round trip of an empty task
 * Every check asserts exact return codes; the first mismatch prints and exits 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

#include "runtime_harness.h"

static void noop(void *p)
{
    (void)p;
}

/* ------------------------------------------------------------------ not initialised */

/* Every runtime call fails with ACL_ERROR_UNINITIALIZE and names itself. */
static void all_calls_uninitialised(void)
{
    int32_t dev;
    aclrtRunMode mode;
    aclrtContext ctx;
    aclrtStream st;
    aclrtEvent ev;
    void *p;
    size_t fr, tot;
    float ms;
    aclrtEventRecordedStatus status;
    char buf[16];
    void *fake = (void *)(uintptr_t)0x1001;

#define UNINIT(call, name)                                  \
    do {                                                    \
        EXPECT(call, ACL_ERROR_UNINITIALIZE);               \
        EXPECT_MSG(name, "aclInit");                        \
    } while (0)
    UNINIT(aclrtSetDevice(0), "aclrtSetDevice");
    UNINIT(aclrtResetDevice(0), "aclrtResetDevice");
    UNINIT(aclrtGetDevice(&dev), "aclrtGetDevice");
    UNINIT(aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
    UNINIT(aclrtGetRunMode(&mode), "aclrtGetRunMode");
    UNINIT(aclrtCreateContext(&ctx, 0), "aclrtCreateContext");
    UNINIT(aclrtDestroyContext(fake), "aclrtDestroyContext");
    UNINIT(aclrtSetCurrentContext(fake), "aclrtSetCurrentContext");
    UNINIT(aclrtGetCurrentContext(&ctx), "aclrtGetCurrentContext");
    UNINIT(aclrtCreateStream(&st), "aclrtCreateStream");
    UNINIT(aclrtDestroyStream(fake), "aclrtDestroyStream");
    UNINIT(aclrtSynchronizeStream(NULL), "aclrtSynchronizeStream");
    UNINIT(aclrtStreamWaitEvent(NULL, fake), "aclrtStreamWaitEvent");
    UNINIT(aclrtCreateEvent(&ev), "aclrtCreateEvent");
    UNINIT(aclrtDestroyEvent(fake), "aclrtDestroyEvent");
    UNINIT(aclrtRecordEvent(fake, NULL), "aclrtRecordEvent");
    UNINIT(aclrtResetEvent(fake, NULL), "aclrtResetEvent");
    UNINIT(aclrtQueryEventStatus(fake, &status), "aclrtQueryEventStatus");
    UNINIT(aclrtSynchronizeEvent(fake), "aclrtSynchronizeEvent");
    UNINIT(aclrtEventElapsedTime(&ms, fake, fake), "aclrtEventElapsedTime");
    UNINIT(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    UNINIT(aclrtFree(fake), "aclrtFree");
    UNINIT(aclrtMallocHost(&p, 64), "aclrtMallocHost");
    UNINIT(aclrtFreeHost(fake), "aclrtFreeHost");
    UNINIT(aclrtMemcpy(buf, 16, buf + 8, 8, ACL_MEMCPY_HOST_TO_HOST), "aclrtMemcpy");
    UNINIT(aclrtMemcpyAsync(buf, 16, buf + 8, 8, ACL_MEMCPY_HOST_TO_HOST, NULL), "aclrtMemcpyAsync");
    UNINIT(aclrtMemset(buf, 16, 0, 16), "aclrtMemset");
    UNINIT(aclrtMemsetAsync(buf, 16, 0, 16, NULL), "aclrtMemsetAsync");
    UNINIT(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot), "aclrtGetMemInfo");
    UNINIT(hg_stream_submit(NULL, "someCaller", noop, NULL), "someCaller");
#undef UNINIT
    /* tools ask for the SoC before aclInit, so it answers without one */
    EXPECT_TRUE(aclrtGetSocName() != NULL);
}

static void check_before_init(void)
{
    EXPECT_TRUE(aclGetRecentErrMsg() == NULL);
    all_calls_uninitialised();
    EXPECT(aclFinalize(), ACL_ERROR_UNINITIALIZE);
    EXPECT_MSG("aclFinalize");
}

static void check_after_finalize(void)
{
    setup();
    teardown();
    all_calls_uninitialised();
}

/* Calls that need no aclInit. */
/* aclrtGetVersion is deprecated in CANN's header (and so in ours); it still works. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void check_no_init_needed(void)
{
    int32_t a = -1, b = -1, c = -1;
    EXPECT(aclrtGetVersion(&a, &b, &c), ACL_SUCCESS);
    EXPECT(a, ACL_MAJOR_VERSION);
    EXPECT(aclrtGetVersion(NULL, &b, &c), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtGetVersion", "majorVersion");
    EXPECT_TRUE(strcmp(hgEmbeddedVersion(), "pyacl_hardgrad-embedded 0.1.0") == 0);
    expect_all_zero();
    EXPECT(hgGetLiveCounts(NULL), ACL_ERROR_INVALID_PARAM);
}

/* ------------------------------------------------------------------ init / finalize */

#pragma GCC diagnostic pop

static void check_repeat_init(void)
{
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_MSG("aclInit");
    EXPECT(aclInit(""), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

static void check_repeat_finalize(void)
{
    EXPECT(aclFinalize(), ACL_ERROR_UNINITIALIZE);
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    EXPECT_MSG("aclFinalize");
}

static void check_reinit(void)
{
    for (int round = 0; round < 3; ++round) {
        setup();
        void *p = NULL;
        EXPECT(aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        EXPECT(aclrtMemsetAsync(p, 128, round, 128, NULL), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
        EXPECT(aclrtFree(p), ACL_SUCCESS);
        teardown();
    }
    expect_all_zero();
}

static void check_config_path(void)
{
    EXPECT(aclInit("/nonexistent/pyacl_hardgrad/acl.json"), ACL_ERROR_INVALID_FILE);
    EXPECT_MSG("aclInit", "configPath");
    EXPECT(aclInit("/"), ACL_ERROR_INVALID_FILE);
    char path[] = "/tmp/hg_rt_cfg_XXXXXX";
    int fd = mkstemp(path);
    EXPECT_TRUE(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{}\n", f);
    fclose(f);
    EXPECT(aclInit(path), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    remove(path);
    EXPECT(aclInit(""), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

/* aclFinalize synchronizes pending work and releases what the caller left behind. */
static void check_finalize_releases(void)
{
    setup();
    aclrtStream s;
    aclrtEvent e;
    void *p, *h;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMallocHost(&h, 4096), ACL_SUCCESS);
    for (int i = 0; i < 100; ++i)
        EXPECT(aclrtMemsetAsync(p, 1 << 20, i, 1 << 20, s), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(e, s), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    expect_all_zero();
    /* the old handles are stale in the next session */
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
    teardown();
}

/* ------------------------------------------------------------------ devices */

static void check_device_count_env(void)
{
    /* run with PYACL_HARDGRAD_DEVICE_COUNT=3 */
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    uint32_t n = 0;
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 3);
    EXPECT(aclrtSetDevice(2), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_MSG("aclrtSetDevice", "deviceId (3)");
    EXPECT(aclrtResetDevice(2), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

/* aclrtGetDeviceCount needs no aclInit (CANN's asks the driver): outside aclInit..aclFinalize
 * it reads PYACL_HARDGRAD_DEVICE_COUNT as aclInit does; inside, the count aclInit read.
 * Run with PYACL_HARDGRAD_DEVICE_COUNT=3. */
static void check_device_count_without_init(void)
{
    uint32_t n = 0;
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 3);
    EXPECT(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtGetDeviceCount", "count is NULL");
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    setenv("PYACL_HARDGRAD_DEVICE_COUNT", "5", 1);   /* the driver's count is fixed while initialised */
    n = 0;
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 3);
    EXPECT(aclrtSetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);   /* after aclFinalize: read again */
    EXPECT(n, 5);
    unsetenv("PYACL_HARDGRAD_DEVICE_COUNT");
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 1);
    setenv("PYACL_HARDGRAD_DEVICE_COUNT", "", 1);   /* empty: the default, as for aclInit */
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 1);
    expect_all_zero();
}

/* A value aclInit would refuse fails aclrtGetDeviceCount the same way (100000, the variable
 * named), *count untouched, the thread's last runtime error untouched.  Run with
 * PYACL_HARDGRAD_DEVICE_COUNT=abc. */
static void check_device_count_bad_setting(void)
{
    uint32_t n = 77;
    EXPECT(aclrtGetDeviceCount(&n), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtGetDeviceCount", "PYACL_HARDGRAD_DEVICE_COUNT=\"abc\" is invalid", "from 1 to 64");
    EXPECT(n, 77);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    const char *bad[] = {"0", "65", "-1", "2.5", "1K"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("PYACL_HARDGRAD_DEVICE_COUNT", bad[i], 1);
        EXPECT(aclrtGetDeviceCount(&n), ACL_ERROR_INVALID_PARAM);
        EXPECT_MSG("aclrtGetDeviceCount", "PYACL_HARDGRAD_DEVICE_COUNT");
        EXPECT(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
        EXPECT_MSG("aclInit", "PYACL_HARDGRAD_DEVICE_COUNT");
    }
    setenv("PYACL_HARDGRAD_DEVICE_COUNT", "64", 1);
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 64);
}

static void check_device_count_default(void)
{
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    uint32_t n = 0;
    EXPECT(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    EXPECT(n, 1);
    EXPECT(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

static void check_invalid_device_ids(void)
{
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    aclrtContext c;
    EXPECT(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_MSG("aclrtSetDevice", "deviceId (-1)");
    EXPECT(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtSetDevice(INT32_MAX), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtResetDevice(-7), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_MSG("aclrtResetDevice");
    EXPECT(aclrtCreateContext(&c, 4), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_MSG("aclrtCreateContext");
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

static void check_no_device_set(void)
{
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    int32_t d;
    aclrtStream s;
    aclrtEvent e;
    void *p;
    size_t fr, tot;
    aclrtContext c;
    EXPECT(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_MSG("aclrtGetDevice", "aclrtSetDevice");
    EXPECT(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtCreateEvent(&e), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_MSG("aclrtMalloc");
    EXPECT(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtSynchronizeStream(NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtGetCurrentContext(&c), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(hg_stream_submit(NULL, "opX", noop, NULL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_MSG("opX");
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

static void check_null_out_pointers(void)
{
    setup();
    aclrtEvent e;
    float ms;
    EXPECT(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtGetDevice", "deviceId");
    EXPECT(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMalloc", "devPtr");
    EXPECT(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM);
    size_t v;
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &v, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemInfo((aclrtMemAttr)99, &v, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(e, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtEventElapsedTime(NULL, e, e), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtEventElapsedTime(&ms, NULL, e), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtRecordEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSynchronizeEvent(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(hg_stream_submit(NULL, "opY", NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS);
    teardown();
}

static void check_run_mode_soc_version(void)
{
    setup();
    aclrtRunMode m = ACL_DEVICE;
    EXPECT(aclrtGetRunMode(&m), ACL_SUCCESS);
    EXPECT(m, ACL_HOST);
    const char *soc = aclrtGetSocName();
    const char *want = getenv("PYACL_HARDGRAD_SOC");
    EXPECT_TRUE(soc != NULL);
    EXPECT_TRUE(strcmp(soc, want && *want ? want : "Ascend910B") == 0);
    teardown();
}

typedef struct {
    int set;
    int32_t got;
    aclError rc_get;
    aclError rc_after;
} thread_dev;

static void *device_thread(void *p)
{
    thread_dev *t = p;
    if (t->set >= 0) {
        EXPECT(aclrtSetDevice(t->set), ACL_SUCCESS);
        sleep_ms(20); /* overlap with the main thread's binding */
    }
    t->rc_get = aclrtGetDevice(&t->got);
    if (t->set >= 0)
        EXPECT(aclrtResetDevice(t->set), ACL_SUCCESS);
    t->rc_after = aclrtGetDevice(&t->got);
    return NULL;
}

static void check_per_thread_device(void)
{
    setenv("PYACL_HARDGRAD_DEVICE_COUNT", "2", 1);
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    thread_dev a = {1, -1, -1, -1}, b = {-1, -1, -1, -1};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, device_thread, &a);
    pthread_create(&tb, NULL, device_thread, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    EXPECT(a.rc_get, ACL_SUCCESS);
    EXPECT(a.rc_after, ACL_ERROR_RT_CONTEXT_NULL); /* device 1 closed by its reset */
    EXPECT(b.rc_get, ACL_ERROR_RT_CONTEXT_NULL);   /* a new thread has no device */
    int32_t d = -1;
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 0);
    EXPECT(aclrtSetDevice(1), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 1);
    EXPECT(aclrtResetDevice(1), ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

static void check_device_refcount(void)
{
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    int32_t d = -1;
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 0);
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    /* the last reset destroyed the device's streams */
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS); /* not set: nothing to do */
    expect_all_zero();
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

static void check_contexts(void)
{
    setenv("PYACL_HARDGRAD_DEVICE_COUNT", "2", 1);
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    aclrtContext c = NULL, cur = NULL, primary = NULL;
    int32_t d = -1;
    EXPECT(aclrtCreateContext(&c, 1), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 1);
    EXPECT(aclrtGetCurrentContext(&cur), ACL_SUCCESS);
    EXPECT_TRUE(cur == c);
    hgLiveCounts lc;
    EXPECT(hgGetLiveCounts(&lc), ACL_SUCCESS);
    EXPECT(lc.contexts, 1);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 0);
    EXPECT(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
    EXPECT_TRUE(primary != c && primary != NULL);
    EXPECT(aclrtDestroyContext(primary), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtDestroyContext", "default context");
    EXPECT(aclrtSetCurrentContext(c), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 1);
    EXPECT(aclrtDestroyContext(c), ACL_SUCCESS);
    EXPECT(aclrtDestroyContext(c), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSetCurrentContext(c), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtSetCurrentContext(primary), ACL_SUCCESS);
    EXPECT(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT(d, 0);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtSetCurrentContext(primary), ACL_ERROR_RT_INVALID_HANDLE);
    expect_all_zero();
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

/* ------------------------------------------------------------------ streams */

static void check_stream_order(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    enum { N = 1000 };
    uint8_t *scratch, *out;
    EXPECT(aclrtMalloc((void **)&scratch, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc((void **)&out, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < N; ++i) {
        /* each copy must see exactly the memset queued just before it */
        EXPECT(aclrtMemsetAsync(scratch, 256, i & 0xff, 256, s), ACL_SUCCESS);
        EXPECT(aclrtMemcpyAsync(out + i, 1, scratch + (i % 256), 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
    }
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint8_t host[N];
    EXPECT(aclrtMemcpy(host, N, out, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < N; ++i)
        EXPECT(host[i], i & 0xff);
    EXPECT(aclrtFree(scratch), ACL_SUCCESS);
    EXPECT(aclrtFree(out), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown();
}

typedef struct {
    int *log;
    int *len;
    int value;
} log_task;

static void append_task(void *p)
{
    log_task *t = p;
    t->log[(*t->len)++] = t->value;
}

static void check_submit_order(void)
{
    setup();
    enum { N = 1000 };
    static int log[N];
    static log_task tasks[N];
    int len = 0;
    for (int i = 0; i < N; ++i) {
        tasks[i] = (log_task){log, &len, i};
        EXPECT(hg_stream_submit(NULL, "test", append_task, &tasks[i]), ACL_SUCCESS);
    }
    EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    EXPECT(len, N);
    for (int i = 0; i < N; ++i)
        EXPECT(log[i], i);
    teardown();
}

static _Atomic int g_flag;

static void slow_set_flag(void *p)
{
    sleep_ms((int)(intptr_t)p);
    atomic_store(&g_flag, 1);
}

static void check_synchronize_waits(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    atomic_store(&g_flag, 0);
    EXPECT(hg_stream_submit(s, "test", slow_set_flag, (void *)(intptr_t)50), ACL_SUCCESS);
    EXPECT(atomic_load(&g_flag), 0); /* asynchronous: submit returned at once */
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&g_flag), 1);
    /* default stream, and destroy waits for pending work */
    atomic_store(&g_flag, 0);
    EXPECT(hg_stream_submit(NULL, "test", slow_set_flag, (void *)(intptr_t)30), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    EXPECT(atomic_load(&g_flag), 1);
    atomic_store(&g_flag, 0);
    EXPECT(hg_stream_submit(s, "test", slow_set_flag, (void *)(intptr_t)30), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&g_flag), 1);
    teardown();
}

static void check_synchronize_device(void)
{
    setup();
    aclrtStream s1, s2;
    EXPECT(aclrtCreateStream(&s1), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s2), ACL_SUCCESS);
    atomic_store(&g_flag, 0);
    EXPECT(hg_stream_submit(s1, "test", slow_set_flag, (void *)(intptr_t)40), ACL_SUCCESS);
    EXPECT(hg_stream_submit(s2, "test", slow_set_flag, (void *)(intptr_t)10), ACL_SUCCESS);
    EXPECT(hg_stream_submit(NULL, "test", slow_set_flag, (void *)(intptr_t)10), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeDevice(), ACL_SUCCESS);
    EXPECT(atomic_load(&g_flag), 1);
    /* all three done: a sync of each returns at once */
    EXPECT(aclrtSynchronizeStream(s1), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s1), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s2), ACL_SUCCESS);
    teardown();
}

static void check_stale_stream(void)
{
    setup();
    aclrtStream s;
    aclrtEvent e;
    uint8_t *p;
    EXPECT(aclrtMalloc((void **)&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_MSG("aclrtDestroyStream", "stream");
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_MSG("aclrtSynchronizeStream");
    EXPECT(aclrtMemsetAsync(p, 64, 0, 64, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtMemcpyAsync(p, 64, p + 32, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtRecordEvent(e, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamWaitEvent(s, e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(hg_stream_submit(s, "aclnnSomething", noop, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_MSG("aclnnSomething");
    /* a made-up value and an event handle are not streams either */
    EXPECT(aclrtSynchronizeStream((aclrtStream)(uintptr_t)0xdeadbeef), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeStream((aclrtStream)e), ACL_ERROR_RT_INVALID_HANDLE);
    /* a new stream does not revive the old handle */
    aclrtStream s2;
    EXPECT(aclrtCreateStream(&s2), ACL_SUCCESS);
    EXPECT_TRUE(s2 != s);
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyStream(s2), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    teardown();
}

/* ------------------------------------------------------------------ events */

static void check_event_basics(void)
{
    setup();
    aclrtEvent a, b;
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    float ms = -1;
    EXPECT(aclrtCreateEvent(&a), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&b), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(a, &st), ACL_SUCCESS);
    EXPECT(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT(aclrtSynchronizeEvent(a), ACL_SUCCESS); /* never recorded: nothing to wait for */
    EXPECT(aclrtEventElapsedTime(&ms, a, b), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    EXPECT_MSG("aclrtEventElapsedTime", "startEvent");
    EXPECT(aclrtRecordEvent(a, NULL), ACL_SUCCESS);
    EXPECT(hg_stream_submit(NULL, "test", slow_set_flag, (void *)(intptr_t)20), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(b, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeEvent(b), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(b, &st), ACL_SUCCESS);
    EXPECT(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT(aclrtEventElapsedTime(&ms, a, b), ACL_SUCCESS);
    EXPECT_TRUE(ms >= 15.0f && ms < 5000.0f);
    EXPECT(aclrtEventElapsedTime(&ms, b, a), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
    EXPECT(aclrtResetEvent(b, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(b, &st), ACL_SUCCESS);
    EXPECT(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT(aclrtEventElapsedTime(&ms, a, b), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    EXPECT_MSG("endEvent");
    EXPECT(aclrtDestroyEvent(a), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(b), ACL_SUCCESS);
    teardown();
}

static void check_stale_event(void)
{
    setup();
    aclrtEvent e, live;
    aclrtEventRecordedStatus st;
    float ms;
    EXPECT(aclrtCreateEvent(&live), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_MSG("aclrtDestroyEvent", "event");
    EXPECT(aclrtRecordEvent(e, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtResetEvent(e, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtSynchronizeEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtQueryEventStatus(e, &st), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtStreamWaitEvent(NULL, e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtEventElapsedTime(&ms, live, e), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_MSG("endEvent");
    EXPECT(aclrtRecordEvent((aclrtEvent)(uintptr_t)0x77, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyEvent(live), ACL_SUCCESS);
    teardown();
}

static _Atomic int g_seen_flag = -1;

static void read_flag(void *p)
{
    (void)p;
    atomic_store(&g_seen_flag, atomic_load(&g_flag));
}

static void check_stream_wait_event(void)
{
    setup();
    aclrtStream s1, s2;
    aclrtEvent e;
    EXPECT(aclrtCreateStream(&s1), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s2), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    atomic_store(&g_flag, 0);
    EXPECT(hg_stream_submit(s1, "test", slow_set_flag, (void *)(intptr_t)50), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(e, s1), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(s2, e), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS); /* the queued wait keeps it alive */
    EXPECT(hg_stream_submit(s2, "test", read_flag, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s2), ACL_SUCCESS);
    EXPECT(atomic_load(&g_seen_flag), 1);
    /* waiting for a never-recorded event does not block */
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(s2, e), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s2), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s1), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s2), ACL_SUCCESS);
    teardown();
}

/* ------------------------------------------------------------------ memory */

static void check_malloc_args(void)
{
    setup();
    void *p = NULL;
    EXPECT(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMalloc", "size");
    EXPECT(aclrtMalloc(&p, 16, (aclrtMemMallocPolicy)42), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMalloc", "policy");
    EXPECT(aclrtMalloc(&p, 16, (aclrtMemMallocPolicy)-1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(&p, 1, ACL_MEM_MALLOC_NORMAL_ONLY_P2P), ACL_SUCCESS);
    EXPECT((uintptr_t)p % 512, 0);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    EXPECT(aclrtMallocHost(&p, 100), ACL_SUCCESS);
    EXPECT(aclrtFreeHost(p), ACL_SUCCESS);
    EXPECT(aclrtFreeHost(p), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtFreeHost");
    EXPECT(aclrtFreeHost(NULL), ACL_ERROR_RT_PARAM_INVALID);
    teardown();
}

static void check_free_unknown(void)
{
    setup();
    int on_stack = 0;
    void *heap = malloc(64);
    uint8_t *p;
    EXPECT(aclrtFree(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtFree", "devPtr");
    EXPECT(aclrtFree(&on_stack), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtFree(heap), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtFree", "aclrtMalloc");
    EXPECT(aclrtMalloc((void **)&p, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtFree(p + 8), ACL_ERROR_RT_PARAM_INVALID); /* inside, but not the start */
    EXPECT(aclrtFreeHost(p), ACL_ERROR_RT_PARAM_INVALID);  /* device memory is not host memory */
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    free(heap);
    teardown();
}

static void check_double_free(void)
{
    setup();
    void *p;
    EXPECT(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    EXPECT(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtFree", "already freed");
    expect_all_zero();
    teardown();
}

static void check_capacity_exceeded(void)
{
    /* run with PYACL_HARDGRAD_DEVICE_MEMORY=1M */
    setup();
    size_t fr = 0, tot = 0;
    void *p, *q;
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot), ACL_SUCCESS);
    EXPECT(tot, 1 << 20);
    EXPECT(fr, 1 << 20);
    EXPECT(aclrtMalloc(&p, (1 << 20) + 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_MSG("aclrtMalloc", "size");
    EXPECT(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT(aclrtMalloc(&p, 768 << 10, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM_NORMAL, &fr, &tot), ACL_SUCCESS);
    EXPECT(fr, 256 << 10);
    EXPECT(aclrtGetMemInfo(ACL_DDR_MEM, &fr, &tot), ACL_SUCCESS); /* the device has no DDR */
    EXPECT(tot, 0);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM_NORMAL, &fr, &tot), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&q, (256 << 10) + 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT(aclrtMalloc(&q, 256 << 10, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&q, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&p, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    EXPECT(aclrtFree(q), ACL_SUCCESS);
    teardown();
}

static void check_memory_env_default(void)
{
    setup();
    size_t fr = 0, tot = 0;
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &tot), ACL_SUCCESS);
    EXPECT(tot, (size_t)32 << 30);
    EXPECT(fr, tot);
    teardown();
}

static void check_memcpy_checks(void)
{
    setup();
    uint8_t host[256] = {0}, host2[256];
    uint8_t *dev;
    EXPECT(aclrtMalloc((void **)&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, 32, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemcpy", "count (64) exceeds destMax (32)");
    EXPECT(aclrtMemcpy(NULL, 32, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(host, 32, NULL, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(host, 32, dev, 16, (aclrtMemcpyKind)6), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMemcpy", "kind");
    EXPECT(aclrtMemcpy(host, 32, dev, 16, (aclrtMemcpyKind)-1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS); /* count 0: no-op */
    /* the kind is advisory: the addresses decide the direction */
    for (int i = 0; i < 256; ++i)
        host2[i] = (uint8_t)(255 - i);
    EXPECT(aclrtMemcpy(host, 256, host2, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT(host[1], 254);
    EXPECT(aclrtMemcpy(dev, 128, host2, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, 256, dev, 64, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_SUCCESS);
    EXPECT(host[63], 255 - 63);
    /* past the end of the allocation */
    EXPECT(aclrtMemcpy(dev + 100, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(dev + 64, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    /* host to host and default work on anything */
    for (int i = 0; i < 256; ++i)
        host2[i] = (uint8_t)i;
    EXPECT(aclrtMemcpy(host, 256, host2, 256, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
    EXPECT(host[255], 255);
    EXPECT(aclrtMemcpy(dev, 128, host2, 128, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, 256, dev, 128, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
    EXPECT(host[127], 127);
    /* the async copy checks the same things at call time */
    EXPECT(aclrtMemcpyAsync(host, 8, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpyAsync(host, 8, dev, 8, (aclrtMemcpyKind)9, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpyAsync(dev + 100, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemcpyAsync", "dst", "past the end");
    /* an asynchronous copy between two host buffers is not a device task (run mode ACL_HOST) */
    EXPECT(aclrtMemcpyAsync(host, 256, host2, 64, ACL_MEMCPY_HOST_TO_HOST, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_MSG("aclrtMemcpyAsync", "host-to-host");
    EXPECT(aclrtMemcpyAsync(host, 128, dev, 128, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    /* a freed allocation is no longer device memory: the copy is host to host, and
     * asynchronously that is refused */
    EXPECT(aclrtMemcpyAsync(host, 256, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    teardown();
}

static void check_memset_checks(void)
{
    setup();
    uint8_t host[64];
    uint8_t *dev;
    EXPECT(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMemset(dev, 16, 1, 32), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemset", "count (32) exceeds maxCount (16)");
    EXPECT(aclrtMemset(NULL, 16, 1, 16), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemset(host, 64, 1, 64), ACL_ERROR_RT_PARAM_INVALID); /* host memory not from acl */
    EXPECT_MSG("aclrtMemset", "devPtr", "aclrtMallocHost");
    EXPECT(aclrtMemset(dev + 32, 64, 1, 64), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemsetAsync(dev, 16, 1, 32, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemsetAsync");
    EXPECT(aclrtMemsetAsync(host, 64, 1, 64, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemset(dev, 64, 0x1ab, 64), ACL_SUCCESS); /* value is taken as a byte */
    EXPECT(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(host[0], 0xab);
    EXPECT(host[63], 0xab);
    EXPECT(aclrtMemsetAsync(dev, 64, 7, 32, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(host[31], 7);
    EXPECT(host[32], 0xab);
    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    teardown();
}

/* ------------------------------------------------------------------ error text, counts */

static void *errmsg_thread(void *p)
{
    const char **out = p;
    *out = aclGetRecentErrMsg();
    return NULL;
}

static void check_errmsg_names_function(void)
{
    setup();
    uint8_t host[64];
    void *dev;
    EXPECT(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, 32, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    /* a later success leaves the unread text alone */
    EXPECT(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    const char *first = aclGetRecentErrMsg();
    EXPECT_TRUE(first && strcmp(first, "aclrtMemcpy: count (64) exceeds destMax (32)") == 0);
    /* reading hands the text over and clears it */
    EXPECT_TRUE(aclGetRecentErrMsg() == NULL);
    /* failures not read in between stack up, the newest on top */
    EXPECT(aclrtSetDevice(5), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtMemcpy(host, 32, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    const char *both = aclGetRecentErrMsg();
    EXPECT_TRUE(both && strncmp(both, "aclrtMemcpy: count (64) exceeds destMax (32)\naclrtSetDevice: ", 61) == 0);
    EXPECT_TRUE(aclGetRecentErrMsg() == NULL);
    /* and a long backlog is cut, never overflowing: 200 unread failures */
    for (int i = 0; i < 200; i++)
        EXPECT(aclrtSetDevice(5), ACL_ERROR_RT_INVALID_DEVICEID);
    const char *many = aclGetRecentErrMsg();
    EXPECT_TRUE(many && strncmp(many, "aclrtSetDevice: ", 16) == 0 && strlen(many) < 1024);
    EXPECT(aclrtSetDevice(5), ACL_ERROR_RT_INVALID_DEVICEID);
    /* the text is per thread */
    const char *other = (const char *)1;
    pthread_t t;
    pthread_create(&t, NULL, errmsg_thread, &other);
    pthread_join(t, NULL);
    EXPECT_TRUE(other == NULL);
    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    teardown();
}

static void check_live_counts(void)
{
    setup();
    hgLiveCounts c;
    aclrtStream s;
    aclrtEvent e;
    aclrtContext ctx;
    void *d1, *d2, *h;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&d1, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&d2, 28, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMallocHost(&h, 10), ACL_SUCCESS);
    EXPECT(hgGetLiveCounts(&c), ACL_SUCCESS);
    EXPECT(c.deviceAllocations, 2);
    EXPECT(c.deviceBytes, 128);
    EXPECT(c.hostAllocations, 1);
    EXPECT(c.streams, 1);
    EXPECT(c.events, 1);
    EXPECT(c.contexts, 1);
    EXPECT(aclrtFree(d1), ACL_SUCCESS);
    EXPECT(aclrtFree(d2), ACL_SUCCESS);
    EXPECT(aclrtFreeHost(h), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS);
    EXPECT(aclrtDestroyContext(ctx), ACL_SUCCESS);
    expect_all_zero();
    teardown_all_freed();
}

/* ------------------------------------------------------------------ concurrency */

static void *hammer_thread(void *p)
{
    aclrtStream shared = p;
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtStream own;
    aclrtEvent e;
    void *m;
    EXPECT(aclrtCreateStream(&own), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e), ACL_SUCCESS);
    EXPECT(aclrtMalloc(&m, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < 300; ++i) {
        EXPECT(aclrtMemsetAsync(m, 4096, i, 4096, own), ACL_SUCCESS);
        EXPECT(aclrtRecordEvent(e, own), ACL_SUCCESS);
        EXPECT(aclrtStreamWaitEvent(shared, e), ACL_SUCCESS);
        EXPECT(hg_stream_submit(shared, "test", noop, NULL), ACL_SUCCESS);
        if (i % 50 == 0) {
            EXPECT(aclrtSynchronizeStream(shared), ACL_SUCCESS);
            EXPECT(aclrtSynchronizeEvent(e), ACL_SUCCESS);
        }
    }
    EXPECT(aclrtSynchronizeStream(own), ACL_SUCCESS);
    EXPECT(aclrtFree(m), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(own), ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    return NULL;
}

static void check_concurrent_threads(void)
{
    setup();
    aclrtStream shared;
    EXPECT(aclrtCreateStream(&shared), ACL_SUCCESS);
    pthread_t t[4];
    for (int i = 0; i < 4; ++i)
        pthread_create(&t[i], NULL, hammer_thread, shared);
    for (int i = 0; i < 4; ++i)
        pthread_join(t[i], NULL);
    EXPECT(aclrtSynchronizeStream(shared), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(shared), ACL_SUCCESS);
    expect_all_zero();
    teardown();
}

/* ------------------------------------------------------------------ benchmark */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bench(long n)
{
    g_check = "bench";
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    for (int i = 0; i < 1000; ++i) { /* warm up */
        EXPECT(hg_stream_submit(s, "bench", noop, NULL), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    }
    uint64_t *t = malloc((size_t)n * sizeof *t);
    uint64_t start = now_ns();
    for (long i = 0; i < n; ++i) {
        uint64_t t0 = now_ns();
        hg_stream_submit(s, "bench", noop, NULL);
        aclrtSynchronizeStream(s);
        t[i] = now_ns() - t0;
    }
    uint64_t total = now_ns() - start;
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    printf("round trips: %ld  median %llu ns  p90 %llu ns  p99 %llu ns  mean %.0f ns\n", n,
           (unsigned long long)t[n / 2], (unsigned long long)t[n * 9 / 10], (unsigned long long)t[n * 99 / 100],
           (double)total / (double)n);
    free(t);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown();
    return 0;
}

/* ------------------------------------------------------------------ driver */

static const named_check CHECKS[] = {
    {"before_init", check_before_init},
    {"after_finalize", check_after_finalize},
    {"no_init_needed", check_no_init_needed},
    {"repeat_init", check_repeat_init},
    {"repeat_finalize", check_repeat_finalize},
    {"reinit", check_reinit},
    {"config_path", check_config_path},
    {"finalize_releases", check_finalize_releases},
    {"device_count_env", check_device_count_env},
    {"device_count_without_init", check_device_count_without_init},
    {"device_count_bad_setting", check_device_count_bad_setting},
    {"device_count_default", check_device_count_default},
    {"invalid_device_ids", check_invalid_device_ids},
    {"no_device_set", check_no_device_set},
    {"null_out_pointers", check_null_out_pointers},
    {"run_mode_soc_version", check_run_mode_soc_version},
    {"per_thread_device", check_per_thread_device},
    {"device_refcount", check_device_refcount},
    {"contexts", check_contexts},
    {"stream_order", check_stream_order},
    {"submit_order", check_submit_order},
    {"synchronize_waits", check_synchronize_waits},
    {"synchronize_device", check_synchronize_device},
    {"stale_stream", check_stale_stream},
    {"event_basics", check_event_basics},
    {"stale_event", check_stale_event},
    {"stream_wait_event", check_stream_wait_event},
    {"malloc_args", check_malloc_args},
    {"free_unknown", check_free_unknown},
    {"double_free", check_double_free},
    {"capacity_exceeded", check_capacity_exceeded},
    {"memory_env_default", check_memory_env_default},
    {"memcpy_checks", check_memcpy_checks},
    {"memset_checks", check_memset_checks},
    {"errmsg_names_function", check_errmsg_names_function},
    {"live_counts", check_live_counts},
    {"concurrent_threads", check_concurrent_threads},
};

int main(int argc, char **argv)
{
    int rc = run_named_check(argc, argv, CHECKS, sizeof CHECKS / sizeof CHECKS[0]);
    if (rc >= 0)
        return rc;
    if (argc >= 2 && strcmp(argv[1], "bench") == 0)
        return bench(argc >= 3 ? atol(argv[2]) : 100000);
    fprintf(stderr, "usage: %s <check> | --list | bench [N]\n", argv[0]);
    return 2;
}
