/* The harness of the tensor-base check programs (nnopbase_*.c): CHECK counts failures and
 * goes on, printing the line and the error text of the last failing call. */
#ifndef PYACL_HARDGRAD_TEST_CHECK_COUNT_H
#define PYACL_HARDGRAD_TEST_CHECK_COUNT_H

#include <stdio.h>

#include "acl/acl.h"

static int failures;

/* aclGetRecentErrMsg() hands the text over once and clears it (CANN's rule): keep what it
 * returned, so one check can look at it more than once. */
static char g_msg[1024];
static inline const char *last_msg(void)
{
    const char *m = aclGetRecentErrMsg();
    if (m)
        snprintf(g_msg, sizeof g_msg, "%s", m);
    return g_msg[0] ? g_msg : "(none)";
}

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            printf("FAIL line %d: %s (last error: %s)\n", __LINE__, #cond, last_msg()); \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

#endif
