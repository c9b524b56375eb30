/* Per-thread error text behind aclGetRecentErrMsg(), with CANN's semantics: failures stack
 * their messages (the newest first, one per line) until the thread reads them, and reading
 * clears them; the returned text stays valid until the thread's next read. */
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
