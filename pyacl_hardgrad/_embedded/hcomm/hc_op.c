/* Operations as stream tasks: creation, argument checks shared by every operation, the
 * meet where ranks compare descriptors, groups, submission. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_internal.h"

static const char *cmd_name(uint32_t cmd)
{
    switch (cmd) {
    case HCCL_CMD_BROADCAST: return "HcclBroadcast";
    case HCCL_CMD_ALLREDUCE: return "HcclAllReduce";
    case HCCL_CMD_REDUCE: return "HcclReduce";
    case HCCL_CMD_SEND: return "HcclSend";
    case HCCL_CMD_RECEIVE: return "HcclRecv";
    case HCCL_CMD_ALLGATHER: return "HcclAllGather";
    case HCCL_CMD_REDUCE_SCATTER: return "HcclReduceScatter";
    case HCCL_CMD_ALLTOALLV: return "HcclAlltoAllV";
    case HCCL_CMD_ALLTOALLVC: return "HcclAlltoAllVC";
    case HCCL_CMD_ALLTOALL: return "HcclAlltoAll";
    case HCCL_CMD_SCATTER: return "HcclScatter";
    case HCCL_CMD_BATCH_SEND_RECV: return "HcclBatchSendRecv";
    case HCCL_CMD_ALLGATHER_V: return "HcclAllGatherV";
    case HCCL_CMD_REDUCE_SCATTER_V: return "HcclReduceScatterV";
    case HCCL_CMD_BARRIER: return "HcclBarrier";
    default: return "an operation";
    }
}

/* ------------------------------------------------------------------ checks */

HcclResult hc_check_stream(hc_comm *c, const char *func, aclrtStream stream)
{
    aclError e = ACL_SUCCESS;
    int dev = hg_stream_device(stream, func, &e);
    if (dev < 0)
        return hc_fail(HCCL_E_RUNTIME, func, "stream %p is not usable (ACL error %d): see the message above",
                       stream, (int)e);
    if (dev != c->device)
        return hc_fail(HCCL_E_PARA, func, "stream %p belongs to device %d, but rank %u of comm runs on device %d",
                       stream, dev, c->rank, c->device);
    return HCCL_SUCCESS;
}

HcclResult hc_check_buffer(hc_comm *c, const char *func, const char *name, const void *p, uint64_t bytes)
{
    if (!p || bytes == 0)
        return HCCL_SUCCESS;
    int dev = hg_memory_device(p, (size_t)bytes);
    if (dev == -2)
        return hc_fail(HCCL_E_PARA, func, "%s (%p, %" PRIu64 " bytes) runs past the end of its device allocation",
                       name, p, bytes);
    if (dev >= 0 && dev != c->device) {
        if (HG_CHECKING())
            hg_check_finding("wrong-device", func, "%s (%p) is memory of device %d, rank %u of comm runs on device %d",
                             name, p, dev, c->rank, c->device);
        return hc_fail(HCCL_E_PARA, func, "%s (%p) is memory of device %d, but rank %u of comm runs on device %d: "
                       "buffers must be on the communicator's device", name, p, dev, c->rank, c->device);
    }
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ ops */

hc_op *hc_op_new(hc_comm *c, const char *func, uint32_t cmd, hc_algo_fn algo)
{
    hc_op *op = calloc(1, sizeof *op);
    if (!op) {
        hc_fail(HCCL_E_MEMORY, func, "out of memory");
        return NULL;
    }
    atomic_fetch_add(&c->refs, 1);
    op->c = c;
    op->func = func;
    op->algo = algo;
    op->mine.desc.cmd = cmd;
    return op;
}

void hc_op_free(hc_op *op)
{
    if (!op)
        return;
    for (int i = 0; i < HC_OP_ARRAYS; ++i)
        free(op->arr[i]);
    free(op->items);
    hc_comm_put(op->c);
    free(op);
}

void hc_op_access(hc_op *op, const void *p, uint64_t bytes, int write, const char *what)
{
    if (!p || bytes == 0 || op->nacc >= HG_MAX_ACCESSES)
        return;
    hg_access *a = &op->acc[op->nacc++];
    a->anchor = p;
    a->lo = (uintptr_t)p;
    a->hi = (uintptr_t)p + (uintptr_t)bytes;
    a->write = (unsigned char)(write != 0);
    a->dense = 1;
    a->what = what;
}

/* ------------------------------------------------------------------ the meet */

static void describe(const hc_desc *d, char *out, size_t cap)
{
    snprintf(out, cap, "%s (op #%" PRIu64 ", count %" PRIu64 ", dtype %u", cmd_name(d->cmd), d->seq, d->count,
             d->dtype);
    size_t n = strlen(out);
    if (d->dtype2 != d->dtype)
        n += (size_t)snprintf(out + n, cap - n, "/%u", d->dtype2);
    if (d->cmd == HCCL_CMD_ALLREDUCE || d->cmd == HCCL_CMD_REDUCE || d->cmd == HCCL_CMD_REDUCE_SCATTER ||
        d->cmd == HCCL_CMD_REDUCE_SCATTER_V)
        n += (size_t)snprintf(out + n, cap - n, ", op %u", d->op);
    if (d->cmd == HCCL_CMD_BROADCAST || d->cmd == HCCL_CMD_REDUCE || d->cmd == HCCL_CMD_SCATTER)
        n += (size_t)snprintf(out + n, cap - n, ", root %u", d->root);
    snprintf(out + n, cap - n, ")");
}

HcclResult hc_meet(hc_comm *c, const char *func, const hc_peer *mine, hc_peer *peers)
{
    HcclResult r = c->engine->meet(c, mine, peers);
    if (r != HCCL_SUCCESS) {
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, func, "rank %u: the ranks did not meet (%s)", c->rank,
               HcclGetErrorString(r));
        return r;
    }
    const hc_desc *a = &peers[0].desc;
    for (uint32_t q = 1; q < c->nranks; ++q) {
        const hc_desc *b = &peers[q].desc;
        const char *field = a->cmd != b->cmd ? "operation" : a->seq != b->seq ? "operation number"
                            : a->count != b->count ? "count" : a->dtype != b->dtype || a->dtype2 != b->dtype2 ? "dtype"
                            : a->op != b->op ? "reduce op" : a->root != b->root ? "root"
                            : a->shape_hash != b->shape_hash ? "count arrays" : NULL;
        if (field) {
            char da[200], db[200];
            describe(a, da, sizeof da);
            describe(b, db, sizeof db);
            HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, func, "rank %u: the ranks' operations do not match (%s differs): "
                   "rank 0 runs %s, rank %u runs %s", c->rank, field, da, q, db);
            return HCCL_E_PARA;
        }
    }
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ running */

static void op_run_one(hc_op *op)
{
    hc_comm *c = op->c;
    HcclResult r;
    if (op->p2p) {
        r = op->algo(c, op, NULL);
    } else {
        hc_peer *peers = malloc(c->nranks * sizeof *peers);
        op->mine.desc.seq = c->seq++;
        if (!peers) {
            r = HCCL_E_MEMORY;
        } else {
            r = hc_meet(c, op->func, &op->mine, peers);
            if (r == HCCL_SUCCESS)
                r = op->algo(c, op, peers);
        }
        free(peers);
    }
    if (r != HCCL_SUCCESS) {
        hc_comm_async_error(c, r);
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, op->func, "rank %u of comm %s: the operation failed on its stream: %s "
               "(HCCL code %d; HcclGetCommAsyncError reports it)", c->rank, c->name, HcclGetErrorString(r), (int)r);
    }
}

static int single_p2p(const hc_op *op) { return op->p2p && !op->items; }

/* A run of HcclSend / HcclRecv of one communicator in a group, on an engine whose sends may
 * wait for the receiver (shm rings): progressed together, as one batch, so that ranks sending
 * each other more than a ring holds do not wait on each other. */
static hc_op *run_p2p_batch(hc_op *op)
{
    uint32_t n = 0;
    hc_op *end = op;
    while (end && single_p2p(end) && end->c == op->c) {
        n++;
        end = end->next;
    }
    hc_xfer *x = malloc(n * sizeof *x);
    HcclResult r = HCCL_E_MEMORY;
    if (x) {
        uint32_t i = 0;
        for (hc_op *o = op; o != end; o = o->next, ++i) {
            x[i].is_send = o->sends_only;
            x[i].buf = o->sends_only ? (void *)(uintptr_t)o->send : o->recv;
            x[i].bytes = o->p2p_bytes;
            x[i].peer = o->root;
        }
        r = op->c->engine->batch(op->c, x, n);
        free(x);
    }
    if (r != HCCL_SUCCESS) {
        hc_comm_async_error(op->c, r);
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, op->func, "rank %u of comm %s: the group's sends and receives failed "
               "on their stream: %s (HCCL code %d)", op->c->rank, op->c->name, HcclGetErrorString(r), (int)r);
    }
    while (op != end) {
        hc_op *next = op->next;
        hc_op_free(op);
        op = next;
    }
    return end;
}

static void op_task(void *arg)
{
    hc_op *op = arg;
    while (op) {
        if (single_p2p(op) && op->next && single_p2p(op->next) && op->next->c == op->c && op->c->engine->batch) {
            op = run_p2p_batch(op);
            continue;
        }
        hc_op *next = op->next;
        op_run_one(op);
        hc_op_free(op);
        op = next;
    }
}

static HcclResult submit_chain(hc_op *first, aclrtStream stream)
{
    hg_access acc[HG_MAX_ACCESSES];
    int n = 0;
    for (hc_op *o = first; o; o = o->next)
        for (int i = 0; i < o->nacc && n < HG_MAX_ACCESSES; ++i)
            acc[n++] = o->acc[i];
    if (HG_CHECKING() && n > 0)
        hg_check_pending(acc, n);
    aclError e = hg_stream_submit(stream, first->func, op_task, first);
    if (HG_CHECKING())
        hg_check_pending(NULL, 0);
    if (e != ACL_SUCCESS)
        return hc_fail(HCCL_E_RUNTIME, first->func, "cannot enqueue on stream %p (ACL error %d)", stream, (int)e);
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ groups */

typedef struct gentry {
    aclrtStream stream;
    hc_op *head, *tail;
} gentry;

static _Thread_local int g_depth;
static _Thread_local gentry *g_entries;
static _Thread_local size_t g_n, g_cap;

HcclResult hc_op_submit(hc_op *op, aclrtStream stream)
{
    if (g_depth == 0) {
        HcclResult r = submit_chain(op, stream);
        if (r != HCCL_SUCCESS)
            hc_op_free(op);
        return r;
    }
    gentry *e = NULL;
    for (size_t i = 0; i < g_n; ++i)
        if (g_entries[i].stream == stream)
            e = &g_entries[i];
    if (!e) {
        if (g_n == g_cap) {
            size_t cap = g_cap ? 2 * g_cap : 8;
            gentry *p = realloc(g_entries, cap * sizeof *p);
            if (!p) {
                hc_op_free(op);
                return hc_fail(HCCL_E_MEMORY, "HcclGroupStart", "out of memory");
            }
            g_entries = p;
            g_cap = cap;
        }
        e = &g_entries[g_n++];
        e->stream = stream;
        e->head = e->tail = NULL;
    }
    if (op->sends_only) {               /* buffered sends first: the receives after them cannot deadlock */
        hc_op *prev = NULL, *cur = e->head;
        while (cur && cur->sends_only) {
            prev = cur;
            cur = cur->next;
        }
        op->next = cur;
        if (prev)
            prev->next = op;
        else
            e->head = op;
        if (!cur)
            e->tail = op;
    } else {
        if (e->tail)
            e->tail->next = op;
        else
            e->head = op;
        e->tail = op;
    }
    return HCCL_SUCCESS;
}

HcclResult HcclGroupStart(void)
{
    g_depth++;
    return HCCL_SUCCESS;
}

HcclResult HcclGroupEnd(void)
{
    if (g_depth == 0)
        return hc_fail(HCCL_E_PARA, "HcclGroupEnd", "no group is open on this thread (HcclGroupStart first)");
    if (--g_depth > 0)
        return HCCL_SUCCESS;
    HcclResult first = HCCL_SUCCESS;
    for (size_t i = 0; i < g_n; ++i) {
        HcclResult r = submit_chain(g_entries[i].head, g_entries[i].stream);
        if (r != HCCL_SUCCESS) {
            for (hc_op *o = g_entries[i].head; o;) {
                hc_op *next = o->next;
                hc_op_free(o);
                o = next;
            }
            if (first == HCCL_SUCCESS)
                first = r;
        }
    }
    g_n = 0;
    free(g_entries);
    g_entries = NULL;
    g_cap = 0;
    return first;
}

HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    if (!isGroupEnabled)
        return hc_fail(HCCL_E_PTR, "HcclGroupStatusGet", "isGroupEnabled is NULL");
    *isGroupEnabled = g_depth > 0;
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ barrier */

static HcclResult algo_barrier(hc_comm *c, hc_op *op, const hc_peer *peers)
{
    (void)op;
    (void)peers;
    return c->engine->barrier(c);
}

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclBarrier";
    HcclResult err;
    hc_comm *c = hc_comm_get(comm, F, &err);
    if (!c)
        return err;
    err = hc_check_stream(c, F, stream);
    hc_op *op = err == HCCL_SUCCESS ? hc_op_new(c, F, HCCL_CMD_BARRIER, algo_barrier) : NULL;
    hc_comm_put(c);
    if (err != HCCL_SUCCESS)
        return err;
    if (!op)
        return HCCL_E_MEMORY;
    return hc_op_submit(op, stream);
}
