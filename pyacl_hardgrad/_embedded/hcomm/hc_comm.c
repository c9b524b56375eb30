/* Communicators: the registry of live handles, rank queries, destroy, error strings,
 * configuration, async errors, and the calls that have no host meaning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include "hc_engines.h"

/* ------------------------------------------------------------------ errors */

HcclResult hc_fail_at(HcclResult code, const char *func, const char *located_fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, located_fmt);
    /* located_fmt is HG_LOC file:line HG_LOC fmt: keep the location for hg_set_error_at */
    const char *fmt = located_fmt;
    const char *end = NULL;
    if (fmt[0] == HG_LOC[0])
        end = strchr(fmt + 1, HG_LOC[0]);
    vsnprintf(msg, sizeof msg, end ? end + 1 : fmt, ap);
    va_end(ap);
    if (end) {
        char loc[300];
        size_t n = (size_t)(end - fmt) + 1;
        if (n >= sizeof loc)
            n = sizeof loc - 1;
        memcpy(loc, fmt, n);
        loc[n] = '\0';
        char located[1100];
        snprintf(located, sizeof located, "%s%%s (HCCL code %%d)", loc);
        hg_set_error_at(func, located, msg, (int)code);
    } else {
        hg_set_error(func, "%s (HCCL code %d)", msg, (int)code);
    }
    return code;
}

const char *HcclGetErrorString(HcclResult code)
{
    switch (code) {
    case HCCL_SUCCESS: return "no error";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not support feature";
    case HCCL_E_NOT_FOUND: return "not found specific resource";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "call system interface error";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_OPEN_FILE_FAILURE: return "open file fail";
    case HCCL_E_TCP_CONNECT: return "tcp connect fail";
    case HCCL_E_ROCE_CONNECT: return "roce connect fail";
    case HCCL_E_TCP_TRANSFER: return "tcp transfer fail";
    case HCCL_E_ROCE_TRANSFER: return "roce transfer fail";
    case HCCL_E_RUNTIME: return "call runtime api fail";
    case HCCL_E_DRV: return "call driver api fail";
    case HCCL_E_PROFILING: return "call profiling api fail";
    case HCCL_E_CCE: return "call cce api fail";
    case HCCL_E_NETWORK: return "call network api fail";
    case HCCL_E_AGAIN: return "try again";
    case HCCL_E_REMOTE: return "error cqe";
    case HCCL_E_SUSPENDING: return "error communicator suspending";
    case HCCL_E_OPRETRY_FAIL: return "retry constraint";
    case HCCL_E_OOM: return "out of memory";
    case HCCL_E_IN_STATUS: return "the error information is in the status";
    default: return "unknown error";
    }
}

/* ------------------------------------------------------------------ time and environment */

int64_t hc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int env_seconds_ms(const char *name, int dflt_s, int min_s, int max_s)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt_s * 1000;
    char *end = NULL;
    long s = strtol(v, &end, 10);
    if (end == v || *end != '\0' || s < min_s || s > max_s) {
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_WARNING, "hcomm", "%s=%s is not a whole number of seconds in [%d, %d]; "
               "using %d", name, v, min_s, max_s, dflt_s);
        return dflt_s * 1000;
    }
    return (int)(s * 1000);
}

/* HCCL's defaults: 120 s to connect, 1836 s for an operation. */
int hc_connect_timeout_ms(void) { return env_seconds_ms("HCCL_CONNECT_TIMEOUT", 120, 1, 7200); }
int hc_exec_timeout_ms(void) { return env_seconds_ms("HCCL_EXEC_TIMEOUT", 1836, 1, 2147483); }

/* ------------------------------------------------------------------ registry */

static pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static hc_comm **g_reg;
static size_t g_reg_n, g_reg_cap;


int hc_registry_add(hc_comm *c)
{
    pthread_mutex_lock(&g_reg_mu);
    if (g_reg_n == g_reg_cap) {
        size_t cap = g_reg_cap ? 2 * g_reg_cap : 16;
        hc_comm **p = realloc(g_reg, cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&g_reg_mu);
            return -1;
        }
        g_reg = p;
        g_reg_cap = cap;
    }
    g_reg[g_reg_n++] = c;
    pthread_mutex_unlock(&g_reg_mu);
    return 0;
}

/* Remove c from the registry; 1 if it was there. */
static int registry_remove(hc_comm *c)
{
    int found = 0;
    pthread_mutex_lock(&g_reg_mu);
    for (size_t i = 0; i < g_reg_n; ++i) {
        if (g_reg[i] == c) {
            g_reg[i] = g_reg[--g_reg_n];
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&g_reg_mu);
    return found;
}

hc_comm *hc_comm_get(HcclComm handle, const char *func, HcclResult *err)
{
    if (!handle) {
        *err = hc_fail(HCCL_E_PTR, func, "comm is NULL");
        return NULL;
    }
    hc_comm *found = NULL;
    pthread_mutex_lock(&g_reg_mu);
    for (size_t i = 0; i < g_reg_n; ++i) {
        if (g_reg[i] == (hc_comm *)handle) {
            found = g_reg[i];
            atomic_fetch_add(&found->refs, 1);
            break;
        }
    }
    pthread_mutex_unlock(&g_reg_mu);
    if (!found) {
        *err = hc_fail(HCCL_E_PARA, func, "comm %p is not a live communicator (destroyed, or never created "
                       "by HcclCommInit*)", handle);
        return NULL;
    }
    *err = HCCL_SUCCESS;
    return found;
}

static void comm_free(hc_comm *c)
{
    if (c->engine && c->engine->close)
        c->engine->close(c);
    c->magic = 0;
    free(c);
}

void hc_comm_put(hc_comm *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1)
        comm_free(c);
}

void hc_comm_async_error(hc_comm *c, HcclResult code)
{
    int expected = HCCL_SUCCESS;
    atomic_compare_exchange_strong(&c->async_error, &expected, (int)code);
}

/* ------------------------------------------------------------------ queries */

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    HcclResult err;
    if (!rankSize)
        return hc_fail(HCCL_E_PTR, "HcclGetRankSize", "rankSize is NULL");
    hc_comm *c = hc_comm_get(comm, "HcclGetRankSize", &err);
    if (!c)
        return err;
    *rankSize = c->nranks;
    hc_comm_put(c);
    return HCCL_SUCCESS;
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    HcclResult err;
    if (!rank)
        return hc_fail(HCCL_E_PTR, "HcclGetRankId", "rank is NULL");
    hc_comm *c = hc_comm_get(comm, "HcclGetRankId", &err);
    if (!c)
        return err;
    *rank = c->rank;
    hc_comm_put(c);
    return HCCL_SUCCESS;
}

HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    HcclResult err;
    if (!commName)
        return hc_fail(HCCL_E_PTR, "HcclGetCommName", "commName is NULL");
    hc_comm *c = hc_comm_get(comm, "HcclGetCommName", &err);
    if (!c)
        return err;
    snprintf(commName, COMM_NAME_MAX_LENGTH, "%s", c->name);
    hc_comm_put(c);
    return HCCL_SUCCESS;
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    HcclResult err;
    if (!asyncError)
        return hc_fail(HCCL_E_PTR, "HcclGetCommAsyncError", "asyncError is NULL");
    hc_comm *c = hc_comm_get(comm, "HcclGetCommAsyncError", &err);
    if (!c)
        return err;
    *asyncError = (HcclResult)atomic_load(&c->async_error);
    hc_comm_put(c);
    return HCCL_SUCCESS;
}

HcclResult HcclCommDestroy(HcclComm comm)
{
    HcclResult err;
    hc_comm *c = hc_comm_get(comm, "HcclCommDestroy", &err);
    if (!c)
        return err;
    if (!registry_remove(c)) {     /* destroyed by another thread meanwhile */
        hc_comm_put(c);
        return hc_fail(HCCL_E_PARA, "HcclCommDestroy", "comm %p was destroyed already", comm);
    }
    hc_comm_put(c);                /* ours */
    hc_comm_put(c);                /* the handle's: freed once the operations in flight are done */
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ configuration */

static atomic_int g_deterministic;

HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    if (config != HCCL_DETERMINISTIC)
        return hc_fail(HCCL_E_PARA, "HcclSetConfig", "config %d is not an HcclConfig (only HCCL_DETERMINISTIC, 0)",
                       (int)config);
    if (configValue.value < 0 || configValue.value > 2)
        return hc_fail(HCCL_E_PARA, "HcclSetConfig", "HCCL_DETERMINISTIC takes 0, 1 or 2, not %d",
                       (int)configValue.value);
    /* every reduction here is deterministic (rank order) whatever the setting */
    atomic_store(&g_deterministic, configValue.value);
    return HCCL_SUCCESS;
}

HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    if (!configValue)
        return hc_fail(HCCL_E_PTR, "HcclGetConfig", "configValue is NULL");
    if (config != HCCL_DETERMINISTIC)
        return hc_fail(HCCL_E_PARA, "HcclGetConfig", "config %d is not an HcclConfig (only HCCL_DETERMINISTIC, 0)",
                       (int)config);
    configValue->value = atomic_load(&g_deterministic);
    return HCCL_SUCCESS;
}

uint32_t HcclGetCommConfigCapability(void)
{
    /* the fields HcclCommInitRootInfoConfig reads: buffer size, deterministic, name, exec timeout */
    return (1u << HCCL_COMM_CONFIG_BUFFER_SIZE) | (1u << HCCL_COMM_CONFIG_DETERMINISTIC) |
           (1u << HCCL_COMM_CONFIG_COMM_NAME) | (1u << HCCL_COMM_CONFIG_EXEC_TIMEOUT);
}

/* ------------------------------------------------------------------ no host meaning */

static HcclResult no_host_meaning(const char *func, HcclComm comm, const char *why)
{
    HcclResult err;
    hc_comm *c = hc_comm_get(comm, func, &err);
    if (!c)
        return err;
    hc_comm_put(c);
    return hc_fail(HCCL_E_NOT_SUPPORT, func, "%s", why);
}

#define HC_NO_VA "the embedded runtime has no device virtual address space to reserve or map: device memory is " \
                 "host memory, every buffer from aclrtMalloc is usable by collectives as it is"

HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size, size_t alignment, uint64_t flags)
{
    (void)baseVirPtr; (void)size; (void)alignment; (void)flags;
    return no_host_meaning("HcclCommSetMemoryRange", comm, HC_NO_VA);
}

HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr)
{
    (void)baseVirPtr;
    return no_host_meaning("HcclCommUnsetMemoryRange", comm, HC_NO_VA);
}

HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                      aclrtDrvMemHandle handle, uint64_t flags)
{
    (void)virPtr; (void)size; (void)offset; (void)handle; (void)flags;
    return no_host_meaning("HcclCommActivateCommMemory", comm, HC_NO_VA);
}

HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr)
{
    (void)virPtr;
    return no_host_meaning("HcclCommDeactivateCommMemory", comm, HC_NO_VA);
}

#define HC_NO_SYMWIN "symmetric memory windows map one device's memory into its peers' address spaces; the " \
                     "embedded runtime's collectives take any buffer and need no registration"

HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size, HcclCommSymWindow *winHandle,
                                  uint32_t flag)
{
    (void)addr; (void)size; (void)flag;
    if (winHandle)
        *winHandle = NULL;
    return no_host_meaning("HcclCommSymWinRegister", comm, HC_NO_SYMWIN);
}

HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle)
{
    if (!winHandle)
        return hc_fail(HCCL_E_PTR, "HcclCommSymWinDeregister", "winHandle is NULL");
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclCommSymWinDeregister", "%s (so winHandle %p was never registered)",
                   HC_NO_SYMWIN, winHandle);
}

HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle, size_t *offset)
{
    (void)ptr; (void)size; (void)offset;
    if (winHandle)
        *winHandle = NULL;
    return no_host_meaning("HcclCommSymWinGet", comm, HC_NO_SYMWIN);
}
