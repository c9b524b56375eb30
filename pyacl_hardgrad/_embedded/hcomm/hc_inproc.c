/* The inproc engine: ranks of one process.  They share a world (barrier, slots where each
 * rank shows its descriptor and buffers, mailboxes for point to point) and read each other's
 * buffers directly. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hc_engines.h"
#include "hc_sync.h"

typedef struct hc_msg {
    struct hc_msg *next;
    size_t bytes;
    unsigned char data[];
} hc_msg;

typedef struct hc_xslot {
    const void *p;
    const size_t *counts;
    const size_t *displs;
} hc_xslot;

struct hc_world {
    atomic_int refs;
    uint32_t n;
    hc_bar bar;
    hc_peer *slots;        /* 2 * n: meets, by the parity of the meet number */
    hc_xslot *xs;          /* 2 * n: byte movers, by the parity of their number */
    pthread_mutex_t mu;    /* mailboxes */
    pthread_cond_t cv;
    hc_msg **head, **tail; /* n * n, [src * n + dst] */
};

typedef struct hc_inproc {
    hc_world *w;
    uint64_t mseq, xseq;
} hc_inproc;

hc_world *hc_world_new(uint32_t n)
{
    hc_world *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->n = n;
    w->slots = calloc(2 * (size_t)n, sizeof *w->slots);
    w->xs = calloc(2 * (size_t)n, sizeof *w->xs);
    w->head = calloc((size_t)n * n, sizeof *w->head);
    w->tail = calloc((size_t)n * n, sizeof *w->tail);
    if (!w->slots || !w->xs || !w->head || !w->tail) {
        free(w->slots); free(w->xs); free(w->head); free(w->tail); free(w);
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&w->refs, 1);
    return w;
}

void hc_world_ref(hc_world *w) { atomic_fetch_add(&w->refs, 1); }

void hc_world_unref(hc_world *w)
{
    if (!w || atomic_fetch_sub(&w->refs, 1) != 1)
        return;
    for (size_t i = 0; i < (size_t)w->n * w->n; ++i) {
        for (hc_msg *m = w->head[i]; m;) {
            hc_msg *next = m->next;
            free(m);
            m = next;
        }
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w->slots); free(w->xs); free(w->head); free(w->tail);
    free(w);
}

static hc_inproc *ip_of(hc_comm *c) { return (hc_inproc *)c->eng; }

static HcclResult ip_barrier(hc_comm *c)
{
    return hc_bar_wait(&ip_of(c)->w->bar, c->nranks, 0, c->exec_timeout_ms);
}

static HcclResult ip_meet(hc_comm *c, const hc_peer *mine, hc_peer *all)
{
    hc_inproc *ip = ip_of(c);
    hc_world *w = ip->w;
    hc_peer *slots = w->slots + (size_t)(ip->mseq++ & 1) * c->nranks;
    slots[c->rank] = *mine;
    HcclResult r = ip_barrier(c);
    if (r != HCCL_SUCCESS)
        return r;
    memcpy(all, slots, c->nranks * sizeof *all);
    return HCCL_SUCCESS;
}

/* Show (p, counts, displs) to the others; returns the slots of this exchange. */
static hc_xslot *ip_show(hc_comm *c, const void *p, const size_t *counts, const size_t *displs, HcclResult *r)
{
    hc_inproc *ip = ip_of(c);
    hc_xslot *xs = ip->w->xs + (size_t)(ip->xseq++ & 1) * c->nranks;
    xs[c->rank].p = p;
    xs[c->rank].counts = counts;
    xs[c->rank].displs = displs;
    *r = ip_barrier(c);
    return xs;
}

static HcclResult ip_allgather(hc_comm *c, const void *send, void *recv, size_t bytes)
{
    HcclResult r;
    hc_xslot *xs = ip_show(c, send, NULL, NULL, &r);
    if (r != HCCL_SUCCESS)
        return r;
    for (uint32_t q = 0; q < c->nranks; ++q) {
        unsigned char *dst = (unsigned char *)recv + (size_t)q * bytes;
        if (bytes && dst != xs[q].p)
            memcpy(dst, xs[q].p, bytes);
    }
    return ip_barrier(c);
}

static HcclResult ip_alltoallv(hc_comm *c, const void *send, const size_t *scounts, const size_t *sdispls,
                               void *recv, const size_t *rcounts, const size_t *rdispls)
{
    HcclResult r;
    hc_xslot *xs = ip_show(c, send, scounts, sdispls, &r);
    if (r != HCCL_SUCCESS)
        return r;
    HcclResult bad = HCCL_SUCCESS;
    for (uint32_t q = 0; q < c->nranks; ++q) {
        size_t n = xs[q].counts[c->rank];
        if (n != rcounts[q]) {
            bad = HCCL_E_PARA;
            continue;
        }
        const unsigned char *src = (const unsigned char *)xs[q].p + xs[q].displs[c->rank];
        unsigned char *dst = (unsigned char *)recv + rdispls[q];
        if (n && src != dst)
            memcpy(dst, src, n);
    }
    r = ip_barrier(c);
    return bad != HCCL_SUCCESS ? bad : r;
}

static HcclResult ip_broadcast(hc_comm *c, void *buf, size_t bytes, uint32_t root)
{
    HcclResult r;
    hc_xslot *xs = ip_show(c, buf, NULL, NULL, &r);
    if (r != HCCL_SUCCESS)
        return r;
    if (c->rank != root && bytes && buf != xs[root].p)
        memcpy(buf, xs[root].p, bytes);
    return ip_barrier(c);
}

/* Point to point through mailboxes: a send is buffered (copied) and returns at once, so two
 * ranks may send to each other before they receive. */
static HcclResult ip_send(hc_comm *c, const void *buf, size_t bytes, uint32_t peer)
{
    hc_world *w = ip_of(c)->w;
    hc_msg *m = malloc(sizeof *m + bytes);
    if (!m)
        return HCCL_E_MEMORY;
    m->next = NULL;
    m->bytes = bytes;
    if (bytes)
        memcpy(m->data, buf, bytes);
    size_t k = (size_t)c->rank * w->n + peer;
    pthread_mutex_lock(&w->mu);
    if (w->tail[k])
        w->tail[k]->next = m;
    else
        w->head[k] = m;
    w->tail[k] = m;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return HCCL_SUCCESS;
}

static HcclResult ip_recv(hc_comm *c, void *buf, size_t bytes, uint32_t peer)
{
    hc_world *w = ip_of(c)->w;
    size_t k = (size_t)peer * w->n + c->rank;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += c->exec_timeout_ms / 1000;
    dl.tv_nsec += (long)(c->exec_timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec += 1;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    while (!w->head[k]) {
        if (pthread_cond_timedwait(&w->cv, &w->mu, &dl) != 0 && !w->head[k]) {
            pthread_mutex_unlock(&w->mu);
            return HCCL_E_TIMEOUT;
        }
    }
    hc_msg *m = w->head[k];
    w->head[k] = m->next;
    if (!w->head[k])
        w->tail[k] = NULL;
    pthread_mutex_unlock(&w->mu);
    HcclResult r = HCCL_SUCCESS;
    if (m->bytes != bytes)
        r = HCCL_E_PARA;
    else if (bytes)
        memcpy(buf, m->data, bytes);
    free(m);
    return r;
}

static void ip_close(hc_comm *c)
{
    hc_inproc *ip = ip_of(c);
    if (!ip)
        return;
    hc_world_unref(ip->w);
    free(ip);
    c->eng = NULL;
}

const hc_engine hc_engine_inproc = {
    .name = "inproc",
    .direct = 1,
    .meet = ip_meet,
    .barrier = ip_barrier,
    .allgather = ip_allgather,
    .alltoallv = ip_alltoallv,
    .broadcast = ip_broadcast,
    .send = ip_send,
    .recv = ip_recv,
    .window = NULL,
    .win_bytes = 0,
    .close = ip_close,
};

HcclResult hc_inproc_attach(hc_comm *c, hc_world *w)
{
    hc_inproc *ip = calloc(1, sizeof *ip);
    if (!ip)
        return HCCL_E_MEMORY;
    hc_world_ref(w);
    ip->w = w;
    c->eng = ip;
    c->engine = &hc_engine_inproc;
    return HCCL_SUCCESS;
}
