/* The harness of the runtime's C check programs (runtime_checks.c, runtime_families.c,
 * stream_queue.c, stream_inline.c): one check per name, run by run_named_check() (main() from
 * NAMED_CHECKS_MAIN); EXPECT / EXPECT_TRUE stop at the first mismatch with the check's name,
 * the line and the thread's error text; the set-up and teardown every check brackets itself
 * with, and a gate task that holds a stream until the check opens the gate. */
#ifndef PYACL_HARDGRAD_TEST_RUNTIME_HARNESS_H
#define PYACL_HARDGRAD_TEST_RUNTIME_HARNESS_H

#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "pyacl_hardgrad/embedded.h"

/* The enqueue primitives libascendcl offers its sibling libraries (hg_internal.h): a task at
 * the end of the stream's queue, and a kernel task of `elements` elements (UINT64_MAX: not
 * known), which runs inside the launch when the stream is idle and the task small. */
typedef void (*hg_task_fn)(void *arg);
extern aclError hg_stream_submit(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg);
extern aclError hg_stream_launch(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg,
                                 uint64_t elements);

static const char *g_check = "?";

#define EXPECT(expr, want)                                                                                   \
    do {                                                                                                     \
        long long got_ = (long long)(expr);                                                                  \
        long long want_ = (long long)(want);                                                                 \
        if (got_ != want_) {                                                                                 \
            const char *m_ = aclGetRecentErrMsg();                                                           \
            printf("FAIL %s line %d: %s = %lld, expected %lld (last error: %s)\n", g_check, __LINE__, #expr, \
                   got_, want_, m_ ? m_ : "(none)");                                                         \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

#define EXPECT_TRUE(cond)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            printf("FAIL %s line %d: %s is false\n", g_check, __LINE__, #cond);          \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* The thread's error text holds every word given (and is consumed). */
#define EXPECT_MSG(...) expect_msg(__LINE__, __VA_ARGS__, (const char *)NULL)
static inline void expect_msg(int line, ...)
{
    const char *m = aclGetRecentErrMsg();
    va_list ap;
    va_start(ap, line);
    for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *)) {
        if (!m || !strstr(m, w)) {
            printf("FAIL %s line %d: error text \"%s\" lacks \"%s\"\n", g_check, line, m ? m : "(null)", w);
            exit(1);
        }
    }
    va_end(ap);
}

/* Nothing of the runtime is alive. */
static inline void expect_all_zero(void)
{
    hgLiveCounts c;
    EXPECT(hgGetLiveCounts(&c), ACL_SUCCESS);
    EXPECT(c.deviceAllocations, 0);
    EXPECT(c.deviceBytes, 0);
    EXPECT(c.hostAllocations, 0);
    EXPECT(c.streams, 0);
    EXPECT(c.events, 0);
    EXPECT(c.contexts, 0);
}

static inline void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline void setup(void)
{
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
}

static inline void teardown(void)
{
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
}

/* teardown(), then nothing of the runtime may be left alive */
static inline void teardown_all_freed(void)
{
    teardown();
    expect_all_zero();
}

/* Until aclrtStreamQuery reports the stream complete: every task it accepted has run and the
 * worker has marked it so (a synchronize may return a moment before that mark). */
static inline void wait_stream_idle(aclrtStream s)
{
    for (;;) {
        aclrtStreamStatus st;
        EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
        if (st == ACL_STREAM_STATUS_COMPLETE)
            return;
        sched_yield();
    }
}

/* The gate: gate_task (a stream task or host function) holds its stream until open_gate(). */
static inline atomic_int *gate_flag(void)
{
    static atomic_int open;
    return &open;
}

static inline void close_gate(void)
{
    atomic_store(gate_flag(), 0);
}

static inline void open_gate(void)
{
    atomic_store(gate_flag(), 1);
}

static inline void gate_task(void *arg)
{
    (void)arg;
    while (!atomic_load(gate_flag()))
        sleep_ms(1);
}

typedef struct {
    const char *name;
    void (*fn)(void);
} named_check;

/* `prog --list` prints the names; `prog <name>` runs that check and prints "PASS <name>".
 * Returns the exit status, or -1 when argv names no check and is not --list (the caller
 * may then try its own commands). */
static inline int run_named_check(int argc, char **argv, const named_check *checks, size_t n)
{
    if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < n; ++i)
            printf("%s\n", checks[i].name);
        return 0;
    }
    if (argc != 2)
        return -1;
    for (size_t i = 0; i < n; ++i) {
        if (strcmp(argv[1], checks[i].name) == 0) {
            g_check = checks[i].name;
            checks[i].fn();
            printf("PASS %s\n", g_check);
            return 0;
        }
    }
    return -1;
}

/* main() of a check program with no commands of its own: `--list`, or the check named, or the
 * usage and exit status 2. */
#define NAMED_CHECKS_MAIN(table)                                                           \
    int main(int argc, char **argv)                                                        \
    {                                                                                      \
        int rc_ = run_named_check(argc, argv, table, sizeof table / sizeof table[0]);      \
        if (rc_ >= 0)                                                                      \
            return rc_;                                                                    \
        fprintf(stderr, "usage: %s --list | <check>\n", argv[0]);                          \
        return 2;                                                                          \
    }

#endif
