/* Per-thread error text behind aclGetRecentErrMsg(), with CANN's semantics: failures stack
 * their messages (the newest first, one per line) until the thread reads them, and reading
 * clears them; the returned text stays valid until the thread's next read.  Beside it, the
 * thread's last runtime-layer code behind aclrtGetLastError / aclrtPeekAtLastError. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_internal.h"

#define HG_ERRMSG_CAP 1024

static _Thread_local char tls_msg[HG_ERRMSG_CAP];   /* unread messages, newest first */
static _Thread_local size_t tls_len;                 /* 0: nothing unread */
static _Thread_local char tls_read[HG_ERRMSG_CAP];  /* what the last read returned */

void hg_set_error(const char *func, const char *fmt, ...)
{
    char line[HG_ERRMSG_CAP];
    int n = snprintf(line, sizeof line, "%s: ", func ? func : "acl");
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
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
