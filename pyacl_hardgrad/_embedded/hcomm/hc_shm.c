/* The shm engine: ranks in several processes of one host share a POSIX shared memory segment
 * named after the rendezvous nonce.  It holds a barrier, the ranks' descriptors, two windows
 * per rank (what a rank puts in its windows every other rank reads) and a ring per ordered pair
 * of ranks for point to point.  Large transfers go in rounds of a window.  The segment is
 * unlinked as soon as every rank mapped it (so nothing is left behind however the processes
 * end) and unmapped on destroy. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hc_engines.h"
#include "hc_sync.h"

#define SHM_MAGIC 0x48475348u   /* "HGSH" */
#define CACHELINE 64

typedef struct shm_chan {
    _Atomic uint64_t head;            /* bytes written (sender) */
    char pad0[CACHELINE - 8];
    _Atomic uint64_t tail;            /* bytes read (receiver) */
    char pad1[CACHELINE - 8];
    _Atomic uint32_t hseq, tseq;      /* bumped with head / tail: futex words */
    char pad2[CACHELINE - 8];
} shm_chan;

typedef struct shm_hdr {
    uint32_t magic, nranks;
    uint64_t win_bytes, chan_bytes;
    hc_bar bar;
    _Atomic uint32_t attached;
} shm_hdr;

typedef struct hc_shm {
    unsigned char *base;
    size_t size;
    shm_hdr *hdr;
    hc_desc *descs;                   /* 2 * n, by meet parity */
    uint64_t *counts;                 /* n * n: bytes rank p sends rank q in the current alltoallv */
    uint64_t *rounds;                 /* n */
    unsigned char *wins;              /* n * 2 * win_bytes */
    shm_chan *chans;                  /* n * n, [src * n + dst] */
    unsigned char *rings;             /* n * n * chan_bytes */
    size_t win, cb;
    uint64_t mseq;
    char name[64];
} hc_shm;

static hc_shm *S(hc_comm *c) { return (hc_shm *)c->eng; }

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static HcclResult sh_barrier(hc_comm *c)
{
    return hc_bar_wait(&S(c)->hdr->bar, c->nranks, 1, c->exec_timeout_ms);
}

static void *sh_window(hc_comm *c, uint32_t rank, int which)
{
    hc_shm *s = S(c);
    return s->wins + ((size_t)rank * 2 + (size_t)which) * s->win;
}

static HcclResult sh_meet(hc_comm *c, const hc_peer *mine, hc_peer *all)
{
    hc_shm *s = S(c);
    hc_desc *slots = s->descs + (size_t)(s->mseq++ & 1) * c->nranks;
    slots[c->rank] = mine->desc;
    HcclResult r = sh_barrier(c);
    if (r != HCCL_SUCCESS)
        return r;
    memset(all, 0, c->nranks * sizeof *all);
    for (uint32_t q = 0; q < c->nranks; ++q)
        all[q].desc = slots[q];
    return HCCL_SUCCESS;
}

static HcclResult sh_allgather(hc_comm *c, const void *send, void *recv, size_t bytes)
{
    hc_shm *s = S(c);
    HcclResult r = HCCL_SUCCESS;
    if (bytes == 0)
        return sh_barrier(c);
    for (size_t off = 0; off < bytes; off += s->win) {
        size_t k = bytes - off < s->win ? bytes - off : s->win;
        memcpy(sh_window(c, c->rank, 0), (const unsigned char *)send + off, k);
        if ((r = sh_barrier(c)) != HCCL_SUCCESS)
            return r;
        for (uint32_t q = 0; q < c->nranks; ++q)
            memcpy((unsigned char *)recv + (size_t)q * bytes + off, sh_window(c, q, 0), k);
        if ((r = sh_barrier(c)) != HCCL_SUCCESS)
            return r;
    }
    return r;
}

static HcclResult sh_broadcast(hc_comm *c, void *buf, size_t bytes, uint32_t root)
{
    hc_shm *s = S(c);
    HcclResult r = HCCL_SUCCESS;
    for (size_t off = 0; off < bytes; off += s->win) {
        size_t k = bytes - off < s->win ? bytes - off : s->win;
        if (c->rank == root)
            memcpy(sh_window(c, root, 0), (unsigned char *)buf + off, k);
        if ((r = sh_barrier(c)) != HCCL_SUCCESS)
            return r;
        if (c->rank != root)
            memcpy((unsigned char *)buf + off, sh_window(c, root, 0), k);
        if ((r = sh_barrier(c)) != HCCL_SUCCESS)
            return r;
    }
    return r;
}

/* Rounds of window 0 split in n slices (one per destination). */
static HcclResult sh_alltoallv(hc_comm *c, const void *send, const size_t *scounts, const size_t *sdispls,
                               void *recv, const size_t *rcounts, const size_t *rdispls)
{
    hc_shm *s = S(c);
    const uint32_t n = c->nranks, me = c->rank;
    const size_t slice = s->win / n;
    uint64_t most = 0;
    for (uint32_t q = 0; q < n; ++q) {
        s->counts[(size_t)me * n + q] = scounts[q];
        if (scounts[q] > most)
            most = scounts[q];
    }
    s->rounds[me] = (most + slice - 1) / slice;
    HcclResult r = sh_barrier(c);
    if (r != HCCL_SUCCESS)
        return r;
    uint64_t rounds = 0;
    HcclResult bad = HCCL_SUCCESS;
    for (uint32_t q = 0; q < n; ++q) {
        if (s->rounds[q] > rounds)
            rounds = s->rounds[q];
        if (s->counts[(size_t)q * n + me] != rcounts[q])
            bad = HCCL_E_PARA;
    }
    /* everyone read counts and rounds before a later alltoallv overwrites them: the barriers of
     * the rounds (at least one more below) order that */
    if (rounds == 0)
        r = sh_barrier(c);
    for (uint64_t k = 0; k < rounds && r == HCCL_SUCCESS; ++k) {
        size_t off = (size_t)k * slice;
        unsigned char *mine = sh_window(c, me, 0);
        for (uint32_t q = 0; q < n; ++q)
            if (scounts[q] > off) {
                size_t len = scounts[q] - off < slice ? scounts[q] - off : slice;
                memcpy(mine + (size_t)q * slice, (const unsigned char *)send + sdispls[q] + off, len);
            }
        if ((r = sh_barrier(c)) != HCCL_SUCCESS)
            break;
        for (uint32_t q = 0; q < n; ++q) {
            size_t have = (size_t)s->counts[(size_t)q * n + me];
            size_t want = rcounts[q] < have ? rcounts[q] : have;
            if (want > off) {
                size_t len = want - off < slice ? want - off : slice;
                memcpy((unsigned char *)recv + rdispls[q] + off,
                       (const unsigned char *)sh_window(c, q, 0) + (size_t)me * slice, len);
            }
        }
        r = sh_barrier(c);
    }
    return bad != HCCL_SUCCESS ? bad : r;
}

/* ------------------------------------------------------------------ point to point rings */

typedef struct pstate {
    const hc_xfer *x;
    uint64_t hdr;        /* the length word */
    size_t done;         /* bytes of header + payload moved */
    int err;
} pstate;

/* Move as much as possible of p without waiting; 1 when something moved. */
static int p_progress(hc_comm *c, pstate *p)
{
    hc_shm *s = S(c);
    const hc_xfer *x = p->x;
    size_t total = 8 + (x->is_send ? x->bytes : (size_t)p->hdr);
    if (!x->is_send && p->done >= 8)
        total = 8 + (size_t)p->hdr;
    if (p->done >= total && (x->is_send || p->done >= 8))
        return 0;
    uint32_t src = x->is_send ? c->rank : x->peer, dst = x->is_send ? x->peer : c->rank;
    shm_chan *ch = &s->chans[(size_t)src * c->nranks + dst];
    unsigned char *ring = s->rings + ((size_t)src * c->nranks + dst) * s->cb;
    int moved = 0;
    for (;;) {
        uint64_t h = atomic_load_explicit(&ch->head, memory_order_acquire);
        uint64_t t = atomic_load_explicit(&ch->tail, memory_order_acquire);
        size_t avail = x->is_send ? s->cb - (size_t)(h - t) : (size_t)(h - t);
        if (!x->is_send && p->done >= 8)
            total = 8 + (size_t)p->hdr;
        size_t left = total - p->done;
        if (left == 0 || avail == 0)
            return moved;
        uint64_t pos = x->is_send ? h : t;
        size_t at = (size_t)(pos % s->cb);
        size_t k = s->cb - at;
        if (k > avail)
            k = avail;
        if (k > left)
            k = left;
        if (p->done < 8 && k > 8 - p->done)
            k = 8 - p->done;                     /* the header alone first */
        if (x->is_send) {
            const unsigned char *from = p->done < 8 ? (const unsigned char *)&p->hdr + p->done
                                                    : (const unsigned char *)x->buf + (p->done - 8);
            memcpy(ring + at, from, k);
            atomic_store_explicit(&ch->head, h + k, memory_order_release);
            atomic_fetch_add_explicit(&ch->hseq, 1, memory_order_release);
            hc_wake(&ch->hseq, 1);
        } else {
            if (p->done < 8) {
                memcpy((unsigned char *)&p->hdr + p->done, ring + at, k);
            } else {
                size_t pay = p->done - 8;
                if (pay < x->bytes) {
                    size_t use = k < x->bytes - pay ? k : x->bytes - pay;
                    memcpy((unsigned char *)x->buf + pay, ring + at, use);
                }
            }
            atomic_store_explicit(&ch->tail, t + k, memory_order_release);
            atomic_fetch_add_explicit(&ch->tseq, 1, memory_order_release);
            hc_wake(&ch->tseq, 1);
            if (p->done + k == 8 && p->hdr != x->bytes)
                p->err = 1;                      /* read it all anyway, keep the ring in step */
        }
        p->done += k;
        moved = 1;
    }
}

static int p_done(const pstate *p)
{
    if (p->x->is_send)
        return p->done == 8 + p->x->bytes;
    return p->done >= 8 && p->done == 8 + (size_t)p->hdr;
}

static HcclResult sh_batch(hc_comm *c, const hc_xfer *x, uint32_t n)
{
    pstate *ps = calloc(n ? n : 1, sizeof *ps);
    if (!ps)
        return HCCL_E_MEMORY;
    for (uint32_t i = 0; i < n; ++i) {
        ps[i].x = &x[i];
        ps[i].hdr = x[i].is_send ? (uint64_t)x[i].bytes : 0;
    }
    int64_t deadline = hc_now_ms() + c->exec_timeout_ms;
    int idle = 0;
    HcclResult r = HCCL_SUCCESS;
    for (;;) {
        int all = 1, moved = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (p_done(&ps[i]))
                continue;
            all = 0;
            int blocked = 0;          /* an earlier transfer on the same ring goes first */
            for (uint32_t j = 0; j < i && !blocked; ++j)
                blocked = !p_done(&ps[j]) && x[j].is_send == x[i].is_send && x[j].peer == x[i].peer;
            if (!blocked)
                moved |= p_progress(c, &ps[i]);
        }
        if (all)
            break;
        if (moved) {
            idle = 0;
            continue;
        }
        if (++idle < 200) {
            sched_yield();
            continue;
        }
        if (hc_now_ms() >= deadline) {
            r = HCCL_E_TIMEOUT;
            break;
        }
        struct timespec ts = {0, 50000};         /* 50 us: several rings, no single futex to sleep on */
        nanosleep(&ts, NULL);
    }
    for (uint32_t i = 0; i < n && r == HCCL_SUCCESS; ++i)
        if (ps[i].err)
            r = HCCL_E_PARA;
    free(ps);
    return r;
}

static HcclResult sh_send(hc_comm *c, const void *buf, size_t bytes, uint32_t peer)
{
    hc_xfer x = {1, (void *)(uintptr_t)buf, bytes, peer};
    return sh_batch(c, &x, 1);
}

static HcclResult sh_recv(hc_comm *c, void *buf, size_t bytes, uint32_t peer)
{
    hc_xfer x = {0, buf, bytes, peer};
    return sh_batch(c, &x, 1);
}

static void sh_close(hc_comm *c)
{
    hc_shm *s = S(c);
    if (!s)
        return;
    munmap(s->base, s->size);
    free(s);
    c->eng = NULL;
    free((void *)(uintptr_t)c->engine);     /* this communicator's copy of the table */
    c->engine = NULL;
}

static const hc_engine hc_engine_shm = {
    .name = "shm",
    .direct = 0,
    .meet = sh_meet,
    .barrier = sh_barrier,
    .allgather = sh_allgather,
    .alltoallv = sh_alltoallv,
    .broadcast = sh_broadcast,
    .send = sh_send,
    .recv = sh_recv,
    .batch = sh_batch,
    .window = sh_window,
    .win_bytes = 0,             /* per communicator: hc_shm_win_bytes */
    .close = sh_close,
};

HcclResult hc_shm_attach(hc_comm *c, const char *func, uint64_t nonce, int timeout_ms)
{
    const uint32_t n = c->nranks;
    size_t win = n <= 8 ? (1u << 20) : align_up((8u << 20) / n, 4096);
    if (win < (64u << 10))
        win = 64u << 10;
    win = win / n * n;                           /* alltoallv slices */
    size_t cb = align_up((1u << 20) / n, 4096);
    if (cb < (16u << 10))
        cb = 16u << 10;
    size_t ctl = align_up(sizeof(shm_hdr), CACHELINE) + align_up(2 * (size_t)n * sizeof(hc_desc), CACHELINE) +
                 align_up((size_t)n * n * 8, CACHELINE) + align_up((size_t)n * 8, CACHELINE);
    ctl = align_up(ctl, 4096);
    size_t chans = align_up((size_t)n * n * sizeof(shm_chan), 4096);
    size_t size = ctl + 2 * (size_t)n * win + chans + (size_t)n * n * cb;
    hc_shm *s = calloc(1, sizeof *s);
    if (!s)
        return hc_fail(HCCL_E_MEMORY, func, "out of memory");
    snprintf(s->name, sizeof s->name, "/hg_hccl_%016" PRIx64, nonce);
    int fd = shm_open(s->name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        free(s);
        return hc_fail(HCCL_E_SYSCALL, func, "shm_open(%s): %s", "/hg_hccl_<nonce>", strerror(e));
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        shm_unlink(s->name);
        free(s);
        return hc_fail(HCCL_E_SYSCALL, func, "sizing the shared memory segment to %zu bytes: %s", size, strerror(e));
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        int e = errno;
        shm_unlink(s->name);
        free(s);
        return hc_fail(HCCL_E_SYSCALL, func, "mmap of the shared memory segment (%zu bytes): %s", size, strerror(e));
    }
    s->base = base;
    s->size = size;
    s->win = win;
    s->cb = cb;
    unsigned char *p = base;
    s->hdr = (shm_hdr *)p;
    p += align_up(sizeof(shm_hdr), CACHELINE);
    s->descs = (hc_desc *)p;
    p += align_up(2 * (size_t)n * sizeof(hc_desc), CACHELINE);
    s->counts = (uint64_t *)p;
    p += align_up((size_t)n * n * 8, CACHELINE);
    s->rounds = (uint64_t *)p;
    s->wins = (unsigned char *)base + ctl;
    s->chans = (shm_chan *)(s->wins + 2 * (size_t)n * win);
    s->rings = (unsigned char *)s->chans + chans;
    c->eng = s;
    /* the engine table is shared; a communicator's window size lives in its own copy */
    hc_engine *eng = malloc(sizeof *eng);
    if (!eng) {
        munmap(base, size);
        shm_unlink(s->name);
        free(s);
        c->eng = NULL;
        return hc_fail(HCCL_E_MEMORY, func, "out of memory");
    }
    *eng = hc_engine_shm;
    eng->win_bytes = win;
    c->engine = eng;
    atomic_fetch_add(&s->hdr->attached, 1);
    HcclResult r = hc_bar_wait(&s->hdr->bar, n, 1, timeout_ms);
    if (c->rank == 0 || r != HCCL_SUCCESS)
        shm_unlink(s->name);                     /* every rank has it mapped (or it failed) */
    if (r != HCCL_SUCCESS) {
        munmap(base, size);
        free(s);
        free(eng);
        c->eng = NULL;
        c->engine = NULL;
        return hc_fail(r, func, "the ranks did not all map the shared memory segment within %d s", timeout_ms / 1000);
    }
    s->hdr->magic = SHM_MAGIC;
    s->hdr->nranks = n;
    return HCCL_SUCCESS;
}
