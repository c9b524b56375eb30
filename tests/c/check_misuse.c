/* Checking mode's seeded misuses, each with its clean twin (tests/test_check_mode.py).
 *
 *   check_misuse <case>          the misuse: the checker must report it
 *   check_misuse <case>_clean    the same program done right: no finding
 *   check_misuse --list          the case names (misuse and twin)
 *
 * Every program runs aclInit .. aclFinalize around its case and exits 0 when each runtime call
 * returned what CANN's runtime returns (a finding never changes a return code); run it with
 * PYACL_HARDGRAD_CHECK=1.  The findings are on stderr. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_hardswish.h"

#define N 4096

#define OK(expr)                                                                                  \
    do {                                                                                          \
        int rc_ = (int)(expr);                                                                    \
        if (rc_ != 0) {                                                                           \
            printf("FAIL line %d: %s = %d (%s)\n", __LINE__, #expr, rc_, aclGetRecentErrMsg());    \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define RC(expr, want)                                                                            \
    do {                                                                                          \
        int rc_ = (int)(expr);                                                                    \
        if (rc_ != (want)) {                                                                      \
            printf("FAIL line %d: %s = %d, expected %d\n", __LINE__, #expr, rc_, (int)(want));    \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static float g_host[N];

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

/* Fill n floats of device memory from the host (a synchronous write). */
static void upload(void *dev, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        g_host[i] = (float)i / 100.0f - 10.0f;
    OK(aclrtMemcpy(dev, n * 4, g_host, n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
}

static aclTensor *tensor(void *data, int64_t n)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    aclTensor *t = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
    if (!t) {
        printf("FAIL aclCreateTensor\n");
        exit(1);
    }
    return t;
}

/* out = hardswish(self) on stream, n floats. */
static void hardswish(void *self, void *out, int64_t n, aclrtStream stream)
{
    aclTensor *a = tensor(self, n), *b = tensor(out, n);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    OK(aclnnHardswishGetWorkspaceSize(a, b, &ws, &ex));
    OK(aclnnHardswish(NULL, 0, ex, stream));
    OK(aclDestroyTensor(a));
    OK(aclDestroyTensor(b));
}

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    return s;
}

/* ------------------------------------------------------------------ the cases */

/* An operator's output read back before the stream is synchronized. */
static void use_before_sync(int clean)
{
    aclrtStream s = new_stream();
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    upload(x, N);
    hardswish(x, y, N, s);
    if (clean)
        OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(g_host, N * 4, y, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
    OK(aclrtDestroyStream(s));
}

/* The host overwrites an operator's input while the operator is still queued. */
static void use_before_sync_write(int clean)
{
    aclrtStream s = new_stream();
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    upload(x, N);
    hardswish(x, y, N, s);
    if (clean) {
        aclrtEvent ev;
        OK(aclrtCreateEvent(&ev));
        OK(aclrtRecordEvent(ev, s));
        OK(aclrtSynchronizeEvent(ev));
        OK(aclrtDestroyEvent(ev));
    }
    OK(aclrtMemset(x, N * 4, 0, N * 4));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
    OK(aclrtDestroyStream(s));
}

/* A set on one stream, an operator reading it on another, no event between them. */
static void stream_race(int clean)
{
    aclrtStream s1 = new_stream(), s2 = new_stream();
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    OK(aclrtMemsetAsync(x, N * 4, 0, N * 4, s1));
    if (clean) {
        aclrtEvent ev;
        OK(aclrtCreateEvent(&ev));
        OK(aclrtRecordEvent(ev, s1));
        OK(aclrtStreamWaitEvent(s2, ev));
        OK(aclrtDestroyEvent(ev));
    }
    hardswish(x, y, N, s2);
    OK(aclrtSynchronizeDevice());
    OK(aclrtFree(x));
    OK(aclrtFree(y));
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));
}

/* Memory freed while an asynchronous copy into it is still queued. */
static void free_while_in_use(int clean)
{
    aclrtStream s = new_stream();
    void *x = dev_alloc(N * 4);
    OK(aclrtMemcpyAsync(x, N * 4, g_host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
    if (clean)
        OK(aclrtSynchronizeStream(s));
    OK(aclrtFree(x));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtDestroyStream(s));
}

/* A copy out of memory already freed (the runtime sees host memory there: it copies). */
static void use_after_free(int clean)
{
    void *x = dev_alloc(N * 4);
    upload(x, N);
    if (!clean)
        OK(aclrtFree(x));
    OK(aclrtMemcpy(g_host, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    if (clean)
        OK(aclrtFree(x));
}

static void double_free(int clean)
{
    void *x = dev_alloc(64);
    OK(aclrtFree(x));
    if (!clean)
        RC(aclrtFree(x), ACL_ERROR_RT_PARAM_INVALID);
}

/* A free of an address inside a block, and of a device block with aclrtFreeHost. */
static void invalid_free(int clean)
{
    void *x = dev_alloc(1024);
    if (!clean) {
        RC(aclrtFree((char *)x + 64), ACL_ERROR_RT_PARAM_INVALID);
        RC(aclrtFreeHost(x), ACL_ERROR_RT_PARAM_INVALID);
    }
    OK(aclrtFree(x));
}

/* A copy of 4 KiB out of a 1 KiB allocation (the runtime refuses it: 107000, a finding too). */
static void out_of_bounds(int clean)
{
    void *x = dev_alloc(1024);
    OK(aclrtMemset(x, 1024, 0, 1024));
    if (clean)
        OK(aclrtMemcpy(g_host, sizeof g_host, x, 1024, ACL_MEMCPY_DEVICE_TO_HOST));
    else
        RC(aclrtMemcpy(g_host, sizeof g_host, x, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtFree(x));
}

/* An operator planned on live memory and launched after its input was freed (phase 1 checked
 * the address; phase 2 runs on what is now the checker's quarantine). */
static void operator_use_after_free(int clean)
{
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    upload(x, N);
    aclTensor *a = tensor(x, N), *b = tensor(y, N);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    OK(aclnnHardswishGetWorkspaceSize(a, b, &ws, &ex));
    if (!clean)
        OK(aclrtFree(x));
    OK(aclnnHardswish(NULL, 0, ex, NULL));
    OK(aclrtSynchronizeStream(NULL));
    if (clean)
        OK(aclrtFree(x));
    OK(aclDestroyTensor(a));
    OK(aclDestroyTensor(b));
    OK(aclrtFree(y));
}

/* An allocation, a stream and an event nobody releases. */
static void leak(int clean)
{
    void *x = dev_alloc(256);
    aclrtStream s = new_stream();
    aclrtEvent ev;
    OK(aclrtCreateEvent(&ev));
    if (clean) {
        OK(aclrtFree(x));
        OK(aclrtDestroyStream(s));
        OK(aclrtDestroyEvent(ev));
    }
}

/* The tensor base's host objects never destroyed: a tensor, a scalar, an int array, a tensor list
 * (its two tensors are the list's), and an executor whose phase 2 never ran. */
static void leak_objects(int clean)
{
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    upload(x, N);
    aclTensor *t = tensor(x, N);
    float v = 1.0f;
    aclScalar *sc = aclCreateScalar(&v, ACL_FLOAT);
    int64_t dims[2] = {2, 3};
    aclIntArray *ia = aclCreateIntArray(dims, 2);
    aclTensor *elems[2] = {tensor(x, 8), tensor(y, 8)};
    aclTensorList *tl = aclCreateTensorList((const aclTensor *const *)elems, 2);
    aclTensor *a = tensor(x, N), *b = tensor(y, N);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    OK(aclnnHardswishGetWorkspaceSize(a, b, &ws, &ex));
    OK(aclDestroyTensor(a));
    OK(aclDestroyTensor(b));
    if (!sc || !ia || !tl) {
        printf("FAIL creating the objects\n");
        exit(1);
    }
    if (clean) {
        OK(aclDestroyTensor(t));
        OK(aclDestroyScalar(sc));
        OK(aclDestroyIntArray(ia));
        OK(aclDestroyTensorList(tl));
        OK(aclnnHardswish(NULL, 0, ex, NULL));
        OK(aclrtSynchronizeStream(NULL));
    }
    OK(aclrtFree(x));
    OK(aclrtFree(y));
}

/* A device-to-host copy, then an operator, reading bytes nothing wrote. */
static void uninitialized_read(int clean)
{
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    if (clean)
        upload(x, N);
    OK(aclrtMemcpy(g_host, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    hardswish(x, y, N, NULL);
    OK(aclrtSynchronizeStream(NULL));
    OK(aclrtMemcpy(g_host, N * 4, y, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
}

/* A stream destroyed with work nobody synchronized (the runtime drains it: no error code). */
static void destroy_pending(int clean)
{
    aclrtStream s = new_stream();
    void *x = dev_alloc(N * 4);
    OK(aclrtMemsetAsync(x, N * 4, 0, N * 4, s));
    if (clean)
        OK(aclrtSynchronizeStream(s));
    OK(aclrtDestroyStream(s));
    OK(aclrtFree(x));
}

/* A stream query says the work is done, but orders nothing: reading after it is still a
 * use-before-sync; a device synchronize orders it. */
static void query_orders_nothing(int clean)
{
    aclrtStream s = new_stream();
    void *x = dev_alloc(N * 4);
    OK(aclrtMemsetAsync(x, N * 4, 0, N * 4, s));
    if (clean) {
        OK(aclrtSynchronizeDevice());
    } else {
        aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
        while (st != ACL_STREAM_STATUS_COMPLETE)
            OK(aclrtStreamQuery(s, &st));
    }
    OK(aclrtMemcpy(g_host, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtDestroyStream(s));
    OK(aclrtFree(x));
}

/* A host function on the stream touches no device memory: only the order it takes part in. */
static void host_func_cb(void *arg)
{
    (void)arg;
}

static void host_func_between(int clean)
{
    aclrtStream s1 = new_stream(), s2 = new_stream();
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    upload(x, N);
    hardswish(x, y, N, s1);
    OK(aclrtLaunchHostFunc(s1, host_func_cb, NULL));
    aclrtEvent ev;
    OK(aclrtCreateEvent(&ev));
    OK(aclrtRecordEvent(ev, s1));
    if (clean)
        OK(aclrtStreamWaitEvent(s2, ev));
    OK(aclrtMemcpyAsync(g_host, N * 4, y, N * 4, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    OK(aclrtSynchronizeDevice());
    OK(aclrtDestroyEvent(ev));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));
}

/* A thread allocating without a current device of its own (the runtime refuses: 107002). */
static void *no_device_thread(void *arg)
{
    int clean = *(int *)arg;
    void *p = NULL;
    if (clean) {
        OK(aclrtSetDevice(0));
        OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtFree(p));
        OK(aclrtResetDevice(0));
    } else {
        RC(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    }
    return NULL;
}

static void no_current_device(int clean)
{
    pthread_t t;
    if (pthread_create(&t, NULL, no_device_thread, &clean) != 0) {
        printf("FAIL pthread_create\n");
        exit(1);
    }
    pthread_join(t, NULL);
}

/* After the device's reset: an allocation on the thread it was current on, and its stream's
 * handle (both refused by the runtime: 107002, 107017). */
static void use_after_reset(int clean)
{
    aclrtStream s = new_stream();
    if (clean)
        OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    void *p = NULL;
    if (clean) {
        OK(aclrtSetDevice(0));
        OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtFree(p));
    } else {
        RC(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
        RC(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    }
}

/* An event kept past its device's last reset, then recorded and destroyed (the runtime lets both
 * run; on an NPU the reset destroyed the event with its context). */
static void event_after_reset(int clean)
{
    aclrtEvent ev;
    OK(aclrtCreateEvent(&ev));
    if (clean)
        OK(aclrtDestroyEvent(ev));
    OK(aclrtResetDevice(0));
    OK(aclrtSetDevice(0));
    if (!clean) {
        OK(aclrtRecordEvent(ev, NULL));
        OK(aclrtSynchronizeEvent(ev));
        OK(aclrtDestroyEvent(ev));
    }
}

/* Device memory kept past its device's last reset, then set on and freed (the runtime lets both
 * run; on an NPU the reset released the memory and aclrtFree fails with 507899). */
static void memory_after_reset(int clean)
{
    void *p = dev_alloc(256);
    if (clean)
        OK(aclrtFree(p));
    OK(aclrtResetDevice(0));
    OK(aclrtSetDevice(0));
    if (!clean) {
        OK(aclrtMemset(p, 256, 0, 256));
        OK(aclrtFree(p));
    }
}

/* A one-shot executor launched a second time (the runtime refuses: 161002). */
static void executor_reuse(int clean)
{
    void *x = dev_alloc(N * 4), *y = dev_alloc(N * 4);
    upload(x, N);
    aclTensor *a = tensor(x, N), *b = tensor(y, N);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    OK(aclnnHardswishGetWorkspaceSize(a, b, &ws, &ex));
    OK(aclnnHardswish(NULL, 0, ex, NULL));
    if (clean)
        OK(aclnnHardswishGetWorkspaceSize(a, b, &ws, &ex));
    RC(aclnnHardswish(NULL, 0, ex, NULL), clean ? 0 : ACLNN_ERR_PARAM_INVALID);
    OK(aclrtSynchronizeStream(NULL));
    OK(aclDestroyTensor(a));
    OK(aclDestroyTensor(b));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
}

/* A copy into device 1's memory from device 0 without peer access, and an event of device 0
 * recorded on a stream of device 1 (the runtime refuses both: 107000, 107003).  Needs
 * PYACL_HARDGRAD_DEVICE_COUNT=2. */
static void wrong_device(int clean)
{
    void *x0 = dev_alloc(256);
    aclrtEvent ev;
    OK(aclrtCreateEvent(&ev));
    OK(aclrtSetDevice(1));
    void *x1 = dev_alloc(256);
    aclrtStream s1 = new_stream();
    OK(aclrtSetDevice(0));
    if (clean) {
        OK(aclrtDeviceEnablePeerAccess(1, 0));
        OK(aclrtMemcpy(x1, 256, x0, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
        OK(aclrtRecordEvent(ev, NULL));
        OK(aclrtSynchronizeEvent(ev));
    } else {
        OK(aclrtMemset(x0, 256, 0, 256));
        RC(aclrtMemcpy(x1, 256, x0, 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
        RC(aclrtRecordEvent(ev, s1), ACL_ERROR_RT_STREAM_CONTEXT);
    }
    OK(aclrtDestroyEvent(ev));
    OK(aclrtFree(x0));
    OK(aclrtSetDevice(1));
    OK(aclrtDestroyStream(s1));
    OK(aclrtFree(x1));
    OK(aclrtResetDevice(1));
    OK(aclrtResetDevice(1));
    OK(aclrtSetDevice(0));
}

typedef struct {
    const char *name;
    void (*fn)(int clean);
} named;

static const named CASES[] = {
    {"use_before_sync", use_before_sync},
    {"use_before_sync_write", use_before_sync_write},
    {"stream_race", stream_race},
    {"free_while_in_use", free_while_in_use},
    {"use_after_free", use_after_free},
    {"double_free", double_free},
    {"invalid_free", invalid_free},
    {"out_of_bounds", out_of_bounds},
    {"operator_use_after_free", operator_use_after_free},
    {"leak", leak},
    {"leak_objects", leak_objects},
    {"uninitialized_read", uninitialized_read},
    {"destroy_pending", destroy_pending},
    {"query_orders_nothing", query_orders_nothing},
    {"host_func_between", host_func_between},
    {"no_current_device", no_current_device},
    {"use_after_reset", use_after_reset},
    {"event_after_reset", event_after_reset},
    {"memory_after_reset", memory_after_reset},
    {"executor_reuse", executor_reuse},
    {"wrong_device", wrong_device},
};

int main(int argc, char **argv)
{
    size_t ncases = sizeof CASES / sizeof CASES[0];
    if (argc < 2) {
        fprintf(stderr, "usage: %s <case>[_clean] | --list\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < ncases; ++i)
            printf("%s %s_clean\n", CASES[i].name, CASES[i].name);
        return 0;
    }
    char name[128];
    snprintf(name, sizeof name, "%s", argv[1]);
    int clean = 0;
    size_t len = strlen(name);
    if (len > 6 && strcmp(name + len - 6, "_clean") == 0) {
        clean = 1;
        name[len - 6] = '\0';
    }
    for (size_t i = 0; i < ncases; ++i) {
        if (strcmp(CASES[i].name, name) != 0)
            continue;
        OK(aclInit(NULL));
        OK(aclrtSetDevice(0));
        CASES[i].fn(clean);
        OK(aclrtResetDevice(0));
        OK(aclFinalize());
        printf("PASS %s\n", argv[1]);
        return 0;
    }
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}
