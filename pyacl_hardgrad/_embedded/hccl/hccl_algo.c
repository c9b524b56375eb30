/* The algorithms of the collective operations, on the stream's worker after the ranks met.
 *
 * direct engines (ranks of one process): every rank reads the others' buffers.  All-reduce and
 * reduce split the count into one part per rank; rank r reduces part r over all ranks' send
 * buffers, in rank order, and writes the result into every rank's receive buffer (or the
 * root's).  The others pull what they need.  Each ends with a barrier so that no rank returns
 * while another still reads its buffers.
 *
 * other engines: the engine's byte movers (alltoallv, allgather, broadcast): a reduction is a
 * reduce-scatter (alltoallv of the parts, then a local reduction in rank order) followed by an
 * all-gather.  Windowed engines (shared memory) reduce straight out of the ranks' windows.
 *
 * Every algorithm runs its whole protocol even when it finds an error of its own (a count that
 * does not match a peer's), so the other ranks are not left waiting. */
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

typedef unsigned char u8;

static size_t part_lo(uint64_t count, uint32_t n, uint32_t r) { return (size_t)(count * r / n); }

/* acc (HR_BLOCK accumulator elements) = reduction of m elements at offset off (elements) of
 * every rank's source srcs[q], in rank order. */
static void reduce_block(const hr_kernel *k, void *acc, const u8 *const *srcs, uint32_t n, size_t off, size_t m)
{
    k->load(acc, srcs[0] + off * k->esize, m);
    for (uint32_t q = 1; q < n; ++q)
        k->comb(acc, srcs[q] + off * k->esize, m);
}

static HcclResult finish(hc_comm *c, HcclResult mine)
{
    HcclResult r = c->engine->barrier(c);
    return mine != HCCL_SUCCESS ? mine : r;
}

/* ------------------------------------------------------------------ reductions, direct */

/* Rank r reduces elements [lo, hi) of srcs and writes them to every dsts[q] (dsts[q] may be NULL). */
static HcclResult direct_reduce_part(const hr_kernel *k, const u8 *const *srcs, uint32_t n, u8 *const *dsts,
                                     uint32_t ndst, size_t lo, size_t hi)
{
    void *acc = malloc(HR_BLOCK * k->asize);
    if (!acc)
        return HCCL_E_MEMORY;
    for (size_t off = lo; off < hi; off += HR_BLOCK) {
        size_t m = hi - off < HR_BLOCK ? hi - off : HR_BLOCK;
        reduce_block(k, acc, srcs, n, off, m);
        for (uint32_t q = 0; q < ndst; ++q)
            if (dsts[q])
                k->store(dsts[q] + off * k->esize, acc, m);
    }
    free(acc);
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ reductions over byte movers */

/* out[0 .. count) = reduction over ranks of in[0 .. count) (every rank's buffer), through the
 * engine: reduce-scatter by alltoallv, then all-gather.  out may be NULL on ranks that do not
 * want the result (reduce) but they still take part.  Chunked to bound the scratch memory. */
static HcclResult moved_allreduce(hc_comm *c, const hr_kernel *k, const u8 *in, u8 *out, uint64_t count)
{
    const uint32_t n = c->nranks, r = c->rank;
    const size_t es = k->esize;
    const uint64_t chunk = (uint64_t)((16u << 20) / es) / n * n + n;      /* elements per round */
    size_t maxpart = (size_t)((chunk + n - 1) / n);
    size_t *sc = calloc(4 * (size_t)n, sizeof *sc);
    u8 *parts = malloc((size_t)n * maxpart * es);     /* my part of every rank, then every rank's result */
    u8 *gathered = malloc((size_t)n * maxpart * es);
    void *acc = malloc(HR_BLOCK * k->asize);
    HcclResult res = HCCL_SUCCESS;
    if (!sc || !parts || !gathered || !acc) {
        res = HCCL_E_MEMORY;       /* the others would wait: a failed barrier ends them */
        free(sc); free(parts); free(gathered); free(acc);
        return res;
    }
    size_t *sd = sc + n, *rc = sd + n, *rd = rc + n;
    for (uint64_t base = 0; base < count; base += chunk) {
        uint64_t len = count - base < chunk ? count - base : chunk;
        for (uint32_t q = 0; q < n; ++q) {
            size_t lo = part_lo(len, n, q), hi = part_lo(len, n, q + 1);
            sc[q] = (hi - lo) * es;
            sd[q] = (size_t)(base + lo) * es;
        }
        size_t mine = sc[r] / es;
        for (uint32_t q = 0; q < n; ++q) {
            rc[q] = mine * es;
            rd[q] = (size_t)q * maxpart * es;
        }
        HcclResult e = c->engine->alltoallv(c, in, sc, sd, parts, rc, rd);
        if (e != HCCL_SUCCESS)
            return free(sc), free(parts), free(gathered), free(acc), e;
        /* reduce my part over the ranks, in rank order, into slot 0 of parts */
        const u8 *srcs[64];
        const u8 **sp = n <= 64 ? srcs : malloc(n * sizeof *sp);
        if (!sp)
            return free(sc), free(parts), free(gathered), free(acc), HCCL_E_MEMORY;
        for (uint32_t q = 0; q < n; ++q)
            sp[q] = parts + (size_t)q * maxpart * es;
        u8 *result = gathered;     /* scratch for my reduced part before the gather */
        for (size_t off = 0; off < mine; off += HR_BLOCK) {
            size_t m = mine - off < HR_BLOCK ? mine - off : HR_BLOCK;
            reduce_block(k, acc, sp, n, off, m);
            k->store(result + off * es, acc, m);
        }
        if (sp != srcs)
            free(sp);
        memcpy(parts, result, mine * es);
        e = c->engine->allgather(c, parts, gathered, maxpart * es);
        if (e != HCCL_SUCCESS)
            return free(sc), free(parts), free(gathered), free(acc), e;
        if (out)
            for (uint32_t q = 0; q < n; ++q)
                memcpy(out + sd[q], gathered + (size_t)q * maxpart * es, sc[q]);
    }
    free(sc); free(parts); free(gathered); free(acc);
    return res;
}

/* ------------------------------------------------------------------ shared-memory windows */

/* All-reduce through the engine's windows: each round every rank copies a piece of its input
 * into window 0; rank r reduces its share of the piece out of all windows 0 into its window 1;
 * everyone copies all windows 1 out. */
static HcclResult window_allreduce(hc_comm *c, const hr_kernel *k, const u8 *in, u8 *out, uint64_t count)
{
    const hc_engine *e = c->engine;
    const uint32_t n = c->nranks, r = c->rank;
    const size_t es = k->esize;
    const size_t piece = e->win_bytes / es;          /* elements per round */
    void *acc = malloc(HR_BLOCK * k->asize);
    const u8 **srcs = malloc(n * sizeof *srcs);
    if (!acc || !srcs) {
        free(acc);
        free(srcs);
        return HCCL_E_MEMORY;
    }
    for (uint32_t q = 0; q < n; ++q)
        srcs[q] = e->window(c, q, 0);
    HcclResult res = HCCL_SUCCESS;
    for (uint64_t base = 0; base < count && res == HCCL_SUCCESS; base += piece) {
        size_t len = (size_t)(count - base < piece ? count - base : piece);
        memcpy(e->window(c, r, 0), in + base * es, len * es);
        res = e->barrier(c);
        if (res != HCCL_SUCCESS)
            break;
        size_t lo = part_lo(len, n, r), hi = part_lo(len, n, r + 1);
        u8 *mine = (u8 *)e->window(c, r, 1) + lo * es;
        for (size_t off = lo; off < hi; off += HR_BLOCK) {
            size_t m = hi - off < HR_BLOCK ? hi - off : HR_BLOCK;
            reduce_block(k, acc, srcs, n, off, m);
            k->store(mine + (off - lo) * es, acc, m);
        }
        res = e->barrier(c);
        if (res != HCCL_SUCCESS)
            break;
        if (out)
            for (uint32_t q = 0; q < n; ++q) {
                size_t ql = part_lo(len, n, q), qh = part_lo(len, n, q + 1);
                memcpy(out + (base + ql) * es, (const u8 *)e->window(c, q, 1) + ql * es, (qh - ql) * es);
            }
        /* the next round's first barrier keeps windows 1 until everyone copied them out */
    }
    if (res == HCCL_SUCCESS)
        res = e->barrier(c);
    free(acc);
    free(srcs);
    return res;
}

static HcclResult any_allreduce(hc_comm *c, const hr_kernel *k, const u8 *in, u8 *out, uint64_t count)
{
    if (c->engine->window)
        return window_allreduce(c, k, in, out, count);
    return moved_allreduce(c, k, in, out, count);
}

/* ------------------------------------------------------------------ all-reduce, reduce */

HcclResult ha_allreduce(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const hr_kernel *k = hr_get(op->dtype, op->redop);
    const uint32_t n = c->nranks, r = c->rank;
    if (!c->engine->direct)
        return any_allreduce(c, k, op->send, op->recv, op->count);
    const u8 **srcs = malloc(n * sizeof *srcs);
    u8 **dsts = malloc(n * sizeof *dsts);
    HcclResult res = srcs && dsts ? HCCL_SUCCESS : HCCL_E_MEMORY;
    if (res == HCCL_SUCCESS) {
        for (uint32_t q = 0; q < n; ++q) {
            srcs[q] = peers[q].send;
            dsts[q] = peers[q].recv;
        }
        res = direct_reduce_part(k, srcs, n, dsts, n, part_lo(op->count, n, r), part_lo(op->count, n, r + 1));
    }
    free(srcs);
    free(dsts);
    return finish(c, res);
}

HcclResult ha_reduce(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const hr_kernel *k = hr_get(op->dtype, op->redop);
    const uint32_t n = c->nranks, r = c->rank;
    if (!c->engine->direct)
        return any_allreduce(c, k, op->send, r == op->root ? op->recv : NULL, op->count);
    const u8 **srcs = malloc(n * sizeof *srcs);
    HcclResult res = srcs ? HCCL_SUCCESS : HCCL_E_MEMORY;
    if (res == HCCL_SUCCESS) {
        for (uint32_t q = 0; q < n; ++q)
            srcs[q] = peers[q].send;
        u8 *dst = peers[op->root].recv;
        res = direct_reduce_part(k, srcs, n, &dst, 1, part_lo(op->count, n, r), part_lo(op->count, n, r + 1));
    }
    free(srcs);
    return finish(c, res);
}

/* ------------------------------------------------------------------ reduce-scatter */

/* Rank r's block comes from peer q's send at displacement displ(q) (elements), count elements. */
static HcclResult rs_common(hc_comm *c, const hr_kernel *k, const hc_peer *peers, void *recv, uint64_t count,
                            const uint64_t *const *counts, const uint64_t *const *displs, uint64_t fixed_stride)
{
    const uint32_t n = c->nranks, r = c->rank;
    const u8 **srcs = malloc(n * sizeof *srcs);
    HcclResult res = srcs ? HCCL_SUCCESS : HCCL_E_MEMORY;
    for (uint32_t q = 0; q < n && res == HCCL_SUCCESS; ++q) {
        if (counts && counts[q][r] != count) {
            HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, "HcclReduceScatterV", "rank %u receives %llu elements, but rank %u "
                   "sends it %llu (sendCounts[%u])", r, (unsigned long long)count, q,
                   (unsigned long long)counts[q][r], r);
            res = HCCL_E_PARA;
            break;
        }
        uint64_t d = displs ? displs[q][r] : fixed_stride * r;
        srcs[q] = (const u8 *)peers[q].send + d * k->esize;
    }
    if (res == HCCL_SUCCESS) {
        u8 *dst = recv;
        res = direct_reduce_part(k, srcs, n, &dst, 1, 0, (size_t)count);
    }
    free(srcs);
    return finish(c, res);
}

/* Reduce-scatter over byte movers: every rank's block q of size counts[q] at displs[q] (bytes)
 * goes to rank q; rank r reduces the n blocks it got. */
static HcclResult moved_rs(hc_comm *c, const hr_kernel *k, const u8 *send, const size_t *sc, const size_t *sd,
                           u8 *recv, uint64_t count)
{
    const uint32_t n = c->nranks;
    const size_t es = k->esize, bytes = (size_t)count * es;
    size_t *rc = calloc(2 * (size_t)n, sizeof *rc);
    u8 *tmp = malloc(bytes * n + 1);
    const u8 **srcs = malloc(n * sizeof *srcs);
    if (!rc || !tmp || !srcs) {
        free(rc); free(tmp); free(srcs);
        return HCCL_E_MEMORY;
    }
    size_t *rd = rc + n;
    for (uint32_t q = 0; q < n; ++q) {
        rc[q] = bytes;
        rd[q] = q * bytes;
        srcs[q] = tmp + q * bytes;
    }
    HcclResult res = c->engine->alltoallv(c, send, sc, sd, tmp, rc, rd);
    if (res == HCCL_SUCCESS)
        res = direct_reduce_part(k, srcs, n, &recv, 1, 0, (size_t)count);
    free(rc); free(tmp); free(srcs);
    return res;
}

HcclResult ha_reduce_scatter(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const hr_kernel *k = hr_get(op->dtype, op->redop);
    if (c->engine->direct)
        return rs_common(c, k, peers, op->recv, op->count, NULL, NULL, op->count);
    const uint32_t n = c->nranks;
    size_t *sc = calloc(2 * (size_t)n, sizeof *sc);
    if (!sc)
        return HCCL_E_MEMORY;
    for (uint32_t q = 0; q < n; ++q) {
        sc[q] = (size_t)op->count * k->esize;
        sc[n + q] = q * sc[q];
    }
    HcclResult res = moved_rs(c, k, op->send, sc, sc + n, op->recv, op->count);
    free(sc);
    return res;
}

HcclResult ha_reduce_scatter_v(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const hr_kernel *k = hr_get(op->dtype, op->redop);
    const uint32_t n = c->nranks;
    if (c->engine->direct) {
        const uint64_t **counts = malloc(n * sizeof *counts), **displs = malloc(n * sizeof *displs);
        HcclResult res = counts && displs ? HCCL_SUCCESS : HCCL_E_MEMORY;
        if (res == HCCL_SUCCESS) {
            for (uint32_t q = 0; q < n; ++q) {
                counts[q] = peers[q].aux;
                displs[q] = peers[q].aux2;
            }
            res = rs_common(c, k, peers, op->recv, op->count, counts, displs, 0);
        } else {
            res = finish(c, res);
        }
        free(counts);
        free(displs);
        return res;
    }
    size_t *sc = calloc(2 * (size_t)n, sizeof *sc);
    if (!sc)
        return HCCL_E_MEMORY;
    for (uint32_t q = 0; q < n; ++q) {
        sc[q] = (size_t)op->arr[0][q] * k->esize;
        sc[n + q] = (size_t)op->arr[1][q] * k->esize;
    }
    HcclResult res = moved_rs(c, k, op->send, sc, sc + n, op->recv, op->count);
    free(sc);
    return res;
}

/* ------------------------------------------------------------------ data movement */

HcclResult ha_allgather(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const size_t bytes = (size_t)op->count * hr_dtype_size(op->dtype);
    if (!c->engine->direct)
        return c->engine->allgather(c, op->send, op->recv, bytes);
    for (uint32_t q = 0; q < c->nranks; ++q) {
        u8 *dst = (u8 *)op->recv + q * bytes;
        if (dst != peers[q].send)
            memcpy(dst, peers[q].send, bytes);
    }
    return finish(c, HCCL_SUCCESS);
}

HcclResult ha_allgather_v(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const uint32_t n = c->nranks, r = c->rank;
    const size_t es = hr_dtype_size(op->dtype);
    const uint64_t *rcounts = op->arr[0], *rdispls = op->arr[1];
    if (c->engine->direct) {
        HcclResult res = HCCL_SUCCESS;
        for (uint32_t q = 0; q < n; ++q) {
            if (peers[q].desc.local != rcounts[q]) {
                HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, op->func, "rank %u expects %llu elements from rank %u "
                       "(recvCounts[%u]), which sends %llu", r, (unsigned long long)rcounts[q], q, q,
                       (unsigned long long)peers[q].desc.local);
                res = HCCL_E_PARA;
                continue;
            }
            u8 *dst = (u8 *)op->recv + rdispls[q] * es;
            if (dst != peers[q].send && rcounts[q])
                memcpy(dst, peers[q].send, (size_t)rcounts[q] * es);
        }
        return finish(c, res);
    }
    size_t *a = calloc(4 * (size_t)n, sizeof *a);
    if (!a)
        return HCCL_E_MEMORY;
    for (uint32_t q = 0; q < n; ++q) {
        a[q] = (size_t)op->count * es;
        a[n + q] = 0;
        a[2 * n + q] = (size_t)rcounts[q] * es;
        a[3 * n + q] = (size_t)rdispls[q] * es;
    }
    HcclResult res = c->engine->alltoallv(c, op->send, a, a + n, op->recv, a + 2 * n, a + 3 * n);
    free(a);
    return res;
}

HcclResult ha_broadcast(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const size_t bytes = (size_t)op->count * hr_dtype_size(op->dtype);
    if (!c->engine->direct)
        return c->engine->broadcast(c, op->recv, bytes, op->root);
    if (c->rank != op->root && op->recv != peers[op->root].recv)
        memcpy(op->recv, peers[op->root].recv, bytes);
    return finish(c, HCCL_SUCCESS);
}

HcclResult ha_scatter(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const uint32_t n = c->nranks, r = c->rank;
    const size_t bytes = (size_t)op->count * hr_dtype_size(op->dtype);
    if (c->engine->direct) {
        const u8 *src = (const u8 *)peers[op->root].send + r * bytes;
        if (src != op->recv)
            memcpy(op->recv, src, bytes);
        return finish(c, HCCL_SUCCESS);
    }
    size_t *a = calloc(4 * (size_t)n, sizeof *a);
    if (!a)
        return HCCL_E_MEMORY;
    for (uint32_t q = 0; q < n; ++q) {
        a[q] = r == op->root ? bytes : 0;
        a[n + q] = q * bytes;
        a[2 * n + q] = q == op->root ? bytes : 0;
        a[3 * n + q] = 0;
    }
    HcclResult res = c->engine->alltoallv(c, op->send, a, a + n, op->recv, a + 2 * n, a + 3 * n);
    free(a);
    return res;
}

HcclResult ha_alltoallv(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    const uint32_t n = c->nranks, r = c->rank;
    const size_t es = hr_dtype_size(op->dtype);
    const uint64_t *rcounts = op->arr[2], *rdispls = op->arr[3];
    if (c->engine->direct) {
        HcclResult res = HCCL_SUCCESS;
        for (uint32_t q = 0; q < n; ++q) {
            const uint64_t *qc = peers[q].aux, *qd = peers[q].aux2;
            if (qc[r] != rcounts[q]) {
                HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, op->func, "rank %u expects %llu elements from rank %u, which "
                       "sends it %llu", r, (unsigned long long)rcounts[q], q, (unsigned long long)qc[r]);
                res = HCCL_E_PARA;
                continue;
            }
            const u8 *src = (const u8 *)peers[q].send + qd[r] * es;
            u8 *dst = (u8 *)op->recv + rdispls[q] * es;
            if (rcounts[q] && src != dst)
                memcpy(dst, src, (size_t)rcounts[q] * es);
        }
        return finish(c, res);
    }
    size_t *a = calloc(4 * (size_t)n, sizeof *a);
    if (!a)
        return HCCL_E_MEMORY;
    for (uint32_t q = 0; q < n; ++q)
        for (int j = 0; j < 4; ++j)
            a[(size_t)j * n + q] = (size_t)op->arr[j][q] * es;
    HcclResult res = c->engine->alltoallv(c, op->send, a, a + n, op->recv, a + 2 * n, a + 3 * n);
    free(a);
    return res;
}

/* ------------------------------------------------------------------ point to point */

HcclResult ha_send(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    (void)peers;
    return c->engine->send(c, op->send, (size_t)op->count * hr_dtype_size(op->dtype), op->root);
}

HcclResult ha_recv(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    (void)peers;
    HcclResult r = c->engine->recv(c, op->recv, (size_t)op->count * hr_dtype_size(op->dtype), op->root);
    if (r == HCCL_E_PARA)
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, op->func, "rank %u: the message from rank %u is not %llu elements of "
               "%s long", c->rank, op->root, (unsigned long long)op->count, hr_dtype_name(op->dtype));
    return r;
}

HcclResult ha_batch(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    (void)peers;
    HcclResult first = HCCL_SUCCESS;
    if (c->engine->batch) {
        hc_xfer *x = malloc((op->nitems ? op->nitems : 1) * sizeof *x);
        if (!x)
            return HCCL_E_MEMORY;
        for (uint32_t i = 0; i < op->nitems; ++i) {
            x[i].is_send = op->items[i].sendRecvType == HCCL_SEND;
            x[i].buf = op->items[i].buf;
            x[i].bytes = (size_t)op->items[i].count * hr_dtype_size(op->items[i].dataType);
            x[i].peer = op->items[i].remoteRank;
        }
        first = c->engine->batch(c, x, op->nitems);
        free(x);
        return first;
    }
    for (int pass = 0; pass < 2; ++pass) {           /* the sends (buffered), then the receives */
        for (uint32_t i = 0; i < op->nitems; ++i) {
            const HcclSendRecvItem *it = &op->items[i];
            if ((it->sendRecvType == HCCL_SEND) != (pass == 0))
                continue;
            size_t bytes = (size_t)it->count * hr_dtype_size(it->dataType);
            HcclResult r = pass == 0 ? c->engine->send(c, it->buf, bytes, it->remoteRank)
                                     : c->engine->recv(c, it->buf, bytes, it->remoteRank);
            if (r != HCCL_SUCCESS && first == HCCL_SUCCESS)
                first = r;
        }
    }
    return first;
}
