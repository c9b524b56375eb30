/* Per-thread error text behind aclGetRecentErrMsg(). */
#include <stdarg.h>
#include <stdio.h>

#include "rt_internal.h"

#define HG_ERRMSG_CAP 1024

static _Thread_local char tls_msg[HG_ERRMSG_CAP];
static _Thread_local int tls_has_msg;

void hg_set_error(const char *func, const char *fmt, ...)
{
    int n = snprintf(tls_msg, sizeof tls_msg, "%s: ", func ? func : "acl");
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof tls_msg)
        n = (int)sizeof tls_msg - 1;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tls_msg + n, sizeof tls_msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    tls_has_msg = 1;
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void)
{
    return tls_has_msg ? tls_msg : NULL;
}
