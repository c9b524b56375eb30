/* Barrier and flag waits on futexes (see hc_sync.h). */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hc_sync.h"

#if defined(__x86_64__) || defined(__i386__)
#define HC_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define HC_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define HC_RELAX() ((void)0)
#endif

/* Spins before sleeping: a few microseconds; peers on the other core answer within that when
 * they are running, and a sleeping waiter costs a system call to wake. */
#define HC_SPINS 2000
#define HC_YIELDS 8

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts, int shared)
{
    return syscall(SYS_futex, (uint32_t *)word, op | (shared ? 0 : FUTEX_PRIVATE_FLAG), val, ts, NULL, 0);
}

void hc_wake(_Atomic uint32_t *word, int shared)
{
    futex(word, FUTEX_WAKE, INT_MAX, NULL, shared);
}

int hc_wait_change(_Atomic uint32_t *word, uint32_t old, int shared, int timeout_ms)
{
    for (int i = 0; i < HC_SPINS; ++i) {
        if (atomic_load_explicit(word, memory_order_acquire) != old)
            return 0;
        HC_RELAX();
    }
    for (int i = 0; i < HC_YIELDS; ++i) {
        if (atomic_load_explicit(word, memory_order_acquire) != old)
            return 0;
        sched_yield();
    }
    int64_t deadline = timeout_ms < 0 ? INT64_MAX : hc_now_ms() + timeout_ms;
    while (atomic_load_explicit(word, memory_order_acquire) == old) {
        int64_t left = deadline - hc_now_ms();
        if (left <= 0)
            return -1;
        if (left > 200)          /* wake now and then: a lost wake-up costs at most this */
            left = 200;
        struct timespec ts = {(time_t)(left / 1000), (long)(left % 1000) * 1000000L};
        futex(word, FUTEX_WAIT, old, &ts, shared);
    }
    return 0;
}

HcclResult hc_bar_wait(hc_bar *b, uint32_t n, int shared, int timeout_ms)
{
    if (atomic_load_explicit(&b->broken, memory_order_acquire))
        return HCCL_E_TIMEOUT;
    uint32_t gen = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) + 1 == n) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
        hc_wake(&b->gen, shared);
        return HCCL_SUCCESS;
    }
    int64_t deadline = timeout_ms < 0 ? INT64_MAX : hc_now_ms() + timeout_ms;
    for (;;) {
        int64_t left = deadline - hc_now_ms();
        if (hc_wait_change(&b->gen, gen, shared, left > 1000 ? 1000 : (int)(left < 0 ? 0 : left)) == 0)
            return HCCL_SUCCESS;
        if (atomic_load_explicit(&b->broken, memory_order_acquire))
            return HCCL_E_TIMEOUT;
        if (hc_now_ms() >= deadline) {
            atomic_store_explicit(&b->broken, 1, memory_order_release);
            hc_wake(&b->gen, shared);
            return HCCL_E_TIMEOUT;
        }
    }
}
