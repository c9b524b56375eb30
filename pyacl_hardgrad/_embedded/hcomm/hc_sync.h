/* Low-latency waits shared by the inproc and shm engines: a sense-counting barrier and a
 * flag wait on 32-bit words, spinning briefly (the machine may have few cores) and then
 * sleeping in futex(2) (shared between processes when `shared`). */
#ifndef PYACL_HARDGRAD_HCOMM_HC_SYNC_H_
#define PYACL_HARDGRAD_HCOMM_HC_SYNC_H_

#include <stdatomic.h>
#include <stdint.h>

#include "hc_internal.h"

typedef struct hc_bar {
    _Atomic uint32_t count;   /* arrivals of the current generation */
    _Atomic uint32_t gen;     /* bumped by the last arrival */
    _Atomic uint32_t broken;  /* a rank gave up waiting: the barrier can no longer be trusted */
    uint32_t pad;
} hc_bar;

/* Wait until n ranks arrived; HCCL_E_TIMEOUT after timeout_ms (the barrier is then broken for
 * everyone, so the others fail fast instead of waiting their own timeout out). */
HG_INTERNAL HcclResult hc_bar_wait(hc_bar *b, uint32_t n, int shared, int timeout_ms);

/* Wait until *word != old (or timeout): 0, or -1 on timeout. */
HG_INTERNAL int hc_wait_change(_Atomic uint32_t *word, uint32_t old, int shared, int timeout_ms);
/* Wake every waiter of word. */
HG_INTERNAL void hc_wake(_Atomic uint32_t *word, int shared);

#endif /* PYACL_HARDGRAD_HCOMM_HC_SYNC_H_ */
