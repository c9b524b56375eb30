/* Per-thread error text behind aclGetRecentErrMsg(), with CANN's semantics: failures stack
 * their messages (the newest first, one per line) until the thread reads them, and reading
 * clears them; the returned text stays valid until the thread's next read.  Beside it, the
 * thread's last runtime-layer code behind aclrtGetLastError / aclrtPeekAtLastError. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define HG_ERRMSG_CAP 1024

static _Thread_local char tls_msg[HG_ERRMSG_CAP];   /* unread messages, newest first */
static _Thread_local size_t tls_len;                 /* 0: nothing unread */
static _Thread_local char tls_read[HG_ERRMSG_CAP];  /* what the last read returned */

/* fmt as hg_set_error passes it: HG_LOC file:line HG_LOC format; file and line out of it. */
static const char *split_location(const char *fmt, char *file, size_t cap, int *line)
{
    file[0] = '\0';
    *line = 0;
    if (!fmt || fmt[0] != HG_LOC[0])
        return fmt;
    const char *end = strchr(fmt + 1, HG_LOC[0]);
    if (!end)
        return fmt + 1;
    const char *colon = end;
    while (colon > fmt + 1 && colon[-1] != ':')
        --colon;
    if (colon > fmt + 1) {
        size_t n = (size_t)(colon - 1 - (fmt + 1));
        if (n >= cap)
            n = cap - 1;
        memcpy(file, fmt + 1, n);
        file[n] = '\0';
        *line = atoi(colon);
    }
    return end + 1;
}

static void set_text(int level, const char *func, const char *located_fmt, va_list ap)
{
    char file[256];
    int at;
    const char *fmt = split_location(located_fmt, file, sizeof file, &at);
    char line[HG_ERRMSG_CAP];
    int n = snprintf(line, sizeof line, "%s: ", func ? func : "acl");
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    if (fmt) {
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    }
    size_t len = strlen(line);
    /* the new line on top; older unread ones after it, cut at the capacity */
    size_t keep = 0;
    if (tls_len > 0 && len + 1 < sizeof tls_msg - 1) {
        keep = tls_len;
        if (len + 1 + keep > sizeof tls_msg - 1)
            keep = sizeof tls_msg - 1 - len - 1;
        memmove(tls_msg + len + 1, tls_msg, keep);
        tls_msg[len] = '\n';
        keep += 1;
    }
    memcpy(tls_msg, line, len);
    tls_len = len + keep;
    tls_msg[tls_len] = '\0';
    /* every failure is logged (at ERROR) with the text aclGetRecentErrMsg gives */
    int module = func && strncmp(func, "aclnn", 5) == 0 ? HG_LOG_OP
                 : func && strncmp(func, "Hccl", 4) == 0 ? HG_LOG_HCCL : HG_LOG_ASCENDCL;
    if (HG_LOG_ENABLED(module, level))
        hg_log_write(module, level, file[0] ? file : "?", at, NULL, "%s", line);
}

void hg_set_error_at(const char *func, const char *located_fmt, ...)
{
    va_list ap;
    va_start(ap, located_fmt);
    set_text(HG_LOG_ERROR, func, located_fmt, ap);
    va_end(ap);
}

void hg_set_outcome_at(const char *func, const char *located_fmt, ...)
{
    va_list ap;
    va_start(ap, located_fmt);
    set_text(HG_LOG_DEBUG, func, located_fmt, ap);
    va_end(ap);
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void)
{
    if (tls_len == 0)
        return NULL;
    memcpy(tls_read, tls_msg, tls_len + 1);
    tls_len = 0;
    return tls_read;
}

/* ------------------------------------------------------------------ last error */

static _Thread_local aclError tls_last_error;

aclError hg_rt_ret(aclError rc)
{
    if (HG_CHECKING())
        hg_chk_call_end();
    int layer = rc / 1000;
    if (layer == 107 || layer == 207 || layer == 507)
        tls_last_error = rc;
    return rc;
}

static bool check_level(const char *func, aclrtLastErrLevel level)
{
    if (level == ACL_RT_THREAD_LEVEL)
        return true;
    hg_set_error(func, "level (%d) is not supported; expected ACL_RT_THREAD_LEVEL (0)", (int)level);
    return false;
}

ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (!check_level("aclrtPeekAtLastError", level))
        return ACL_ERROR_INVALID_PARAM;
    return tls_last_error;
}

ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (!check_level("aclrtGetLastError", level))
        return ACL_ERROR_INVALID_PARAM;
    aclError rc = tls_last_error;
    tls_last_error = ACL_SUCCESS;
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    const char *func = "aclrtGetErrorVerbose";
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !errorInfo) {
        hg_set_error(func, "errorInfo is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc && (deviceId < 0 || deviceId >= hg_rt.device_count)) {
        hg_set_error(func, "deviceId (%d) is out of range [0, %d)", (int)deviceId, hg_rt.device_count);
        rc = ACL_ERROR_RT_INVALID_DEVICEID;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    if (rc)
        return hg_rt_ret(rc);
    /* a CPU device has no hardware faults to describe */
    memset(errorInfo, 0, sizeof *errorInfo);
    errorInfo->errorType = ACL_RT_NO_ERROR;
    return ACL_SUCCESS;
}
