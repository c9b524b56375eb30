/* The collective operations' entry points: HCCL's argument checks and codes, then the op is
 * enqueued on the caller's stream (it runs on the stream's worker, where it meets the other
 * ranks; never on the calling thread).
 *
 * Codes as HCCL's: a NULL comm, buffer, array or stream is HCCL_E_PTR; a count above HCCL's
 * limit, a bad root, rank or reduce op, or a buffer of another device is HCCL_E_PARA; a data
 * type the operation does not take is HCCL_E_NOT_SUPPORT.  A count of 0 returns at once. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

#define SYS_MAX_COUNT 0x7FFFFFFFFull

/* Every data type but int128 moves; these reduce (PROD on a subset). */
static HcclResult check_dtype(const char *func, const char *name, uint32_t dtype, int reduce, uint32_t op)
{
    if (reduce) {
        if (op > HCCL_REDUCE_MIN)
            return hc_fail(HCCL_E_PARA, func, "op %u is not an HcclReduceOp (sum 0, prod 1, max 2, min 3)", op);
        if (!hr_get(dtype, op))
            return hc_fail(HCCL_E_NOT_SUPPORT, func, "%s %u (%s) cannot be reduced; reductions take int8, int16, "
                           "int32, int64, float16, float32, bfloat16, uint64, float64", name, dtype,
                           hr_dtype_name(dtype));
        if (op == HCCL_REDUCE_PROD && (dtype == HCCL_DATA_TYPE_INT16 || dtype == HCCL_DATA_TYPE_BFP16))
            return hc_fail(HCCL_E_NOT_SUPPORT, func, "prod does not take %s %s; it takes int8, int32, int64, uint64, "
                           "float16, float32, float64", name, hr_dtype_name(dtype));
        return HCCL_SUCCESS;
    }
    if (hr_dtype_size(dtype) == 0 || dtype == HCCL_DATA_TYPE_INT128)
        return hc_fail(HCCL_E_NOT_SUPPORT, func, "%s %u (%s) is not a data type this operation takes (every "
                       "HcclDataType but int128)", name, dtype, hr_dtype_name(dtype));
    return HCCL_SUCCESS;
}

static HcclResult check_count(const char *func, const char *name, uint64_t count)
{
    if (count > SYS_MAX_COUNT)
        return hc_fail(HCCL_E_PARA, func, "%s %" PRIu64 " is above the largest count, %llu", name, count,
                       SYS_MAX_COUNT);
    return HCCL_SUCCESS;
}

/* Common start: the comm (a reference on success), the stream. */
static hc_comm *begin(HcclComm comm, const char *func, aclrtStream stream, HcclResult *err)
{
    hc_comm *c = hc_comm_get(comm, func, err);
    if (!c)
        return NULL;
    if (!stream) {
        *err = hc_fail(HCCL_E_PTR, func, "stream is NULL (collectives run on a stream made by aclrtCreateStream)");
    } else {
        *err = hc_check_stream(c, func, stream);
    }
    if (*err != HCCL_SUCCESS) {
        hc_comm_put(c);
        return NULL;
    }
    return c;
}

#define TRY(expr)                                                                                   \
    do {                                                                                            \
        HcclResult try_r_ = (expr);                                                                 \
        if (try_r_ != HCCL_SUCCESS) {                                                               \
            if (c)                                                                                  \
                hc_comm_put(c);                                                                     \
            return try_r_;                                                                          \
        }                                                                                           \
    } while (0)

#define NEED_PTR(p, name)                                                                           \
    do {                                                                                            \
        if (!(p))                                                                                   \
            TRY(hc_fail(HCCL_E_PTR, F, "%s is NULL", name));                                        \
    } while (0)

static HcclResult check_root(hc_comm *c, const char *func, uint32_t root)
{
    if (root >= c->nranks)
        return hc_fail(HCCL_E_PARA, func, "root %u is out of range: the comm has %u ranks", root, c->nranks);
    return HCCL_SUCCESS;
}

static uint64_t hash_u64s(const uint64_t *a, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= a[i];
        h *= 1099511628211ull;
    }
    return h ? h : 1;
}

static uint64_t *copy_u64s(const void *src, size_t n)
{
    uint64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (d && n)
        memcpy(d, src, n * sizeof *d);
    return d;
}

/* Build the op, declare its accesses, submit.  Consumes the reference on c. */
static HcclResult launch(hc_comm *c, hc_op *op, aclrtStream stream)
{
    hc_comm_put(c);                /* the op holds its own */
    return hc_op_submit(op, stream);
}

static hc_op *new_op(hc_comm *c, const char *func, uint32_t cmd, hc_algo_fn algo, uint32_t dtype, uint64_t count)
{
    hc_op *op = hc_op_new(c, func, cmd, algo);
    if (!op)
        return NULL;
    op->dtype = op->dtype2 = dtype;
    op->count = count;
    op->mine.desc.dtype = op->mine.desc.dtype2 = dtype;
    op->mine.desc.count = count;
    return op;
}

/* ------------------------------------------------------------------ reductions */

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclAllReduce";
    if (count == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendBuf, "sendBuf");
    NEED_PTR(recvBuf, "recvBuf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "count", count));
    TRY(check_dtype(F, "dataType", dataType, 1, op));
    uint64_t bytes = count * hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, bytes));
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, bytes));
    hc_op *o = new_op(c, F, HCCL_CMD_ALLREDUCE, ha_allreduce, dataType, count);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->redop = o->mine.desc.op = op;
    o->send = o->mine.send = sendBuf;
    o->recv = o->mine.recv = recvBuf;
    hc_op_access(o, sendBuf, bytes, 0, "sendBuf");
    hc_op_access(o, recvBuf, bytes, 1, "recvBuf");
    return launch(c, o, stream);
}

HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                      uint32_t root, HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclReduce";
    if (count == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendBuf, "sendBuf");
    NEED_PTR(recvBuf, "recvBuf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "count", count));
    TRY(check_dtype(F, "dataType", dataType, 1, op));
    TRY(check_root(c, F, root));
    uint64_t bytes = count * hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, bytes));
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, bytes));
    hc_op *o = new_op(c, F, HCCL_CMD_REDUCE, ha_reduce, dataType, count);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->redop = o->mine.desc.op = op;
    o->root = o->mine.desc.root = root;
    o->send = o->mine.send = sendBuf;
    o->recv = o->mine.recv = recvBuf;
    hc_op_access(o, sendBuf, bytes, 0, "sendBuf");
    if (c->rank == root)
        hc_op_access(o, recvBuf, bytes, 1, "recvBuf");
    return launch(c, o, stream);
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                             HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclReduceScatter";
    if (recvCount == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendBuf, "sendBuf");
    NEED_PTR(recvBuf, "recvBuf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "recvCount", recvCount));
    TRY(check_dtype(F, "dataType", dataType, 1, op));
    uint64_t bytes = recvCount * hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, bytes * c->nranks));
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, bytes));
    hc_op *o = new_op(c, F, HCCL_CMD_REDUCE_SCATTER, ha_reduce_scatter, dataType, recvCount);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->redop = o->mine.desc.op = op;
    o->send = o->mine.send = sendBuf;
    o->recv = o->mine.recv = recvBuf;
    hc_op_access(o, sendBuf, bytes * c->nranks, 0, "sendBuf");
    hc_op_access(o, recvBuf, bytes, 1, "recvBuf");
    return launch(c, o, stream);
}

HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                              uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                              aclrtStream stream)
{
    static const char *const F = "HcclReduceScatterV";
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendCounts, "sendCounts");
    NEED_PTR(sendDispls, "sendDispls");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    const uint64_t *sc = sendCounts, *sd = sendDispls;
    const uint32_t n = c->nranks;
    uint64_t extent = 0, total = 0;
    for (uint32_t q = 0; q < n; ++q) {
        TRY(check_count(F, "sendCounts[i]", sc[q]));
        total += sc[q];
        if (sc[q] && sd[q] + sc[q] > extent)
            extent = sd[q] + sc[q];
    }
    if (sc[c->rank] != recvCount)
        TRY(hc_fail(HCCL_E_PARA, F, "recvCount %" PRIu64 " differs from sendCounts[%u] = %" PRIu64 " (this rank's "
                    "block)", recvCount, c->rank, sc[c->rank]));
    if (total == 0) {
        hc_comm_put(c);
        return HCCL_SUCCESS;
    }
    NEED_PTR(sendBuf, "sendBuf");
    if (recvCount)
        NEED_PTR(recvBuf, "recvBuf");
    TRY(check_dtype(F, "dataType", dataType, 1, op));
    size_t es = hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, extent * es));
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, recvCount * es));
    hc_op *o = new_op(c, F, HCCL_CMD_REDUCE_SCATTER_V, ha_reduce_scatter_v, dataType, recvCount);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->mine.desc.count = 0;              /* each rank's own; the count arrays must agree */
    o->mine.desc.shape_hash = hash_u64s(sc, n);
    o->arr[0] = copy_u64s(sc, n);
    o->arr[1] = copy_u64s(sd, n);
    if (!o->arr[0] || !o->arr[1]) {
        hc_op_free(o);
        TRY(hc_fail(HCCL_E_MEMORY, F, "out of memory"));
    }
    o->mine.aux = o->arr[0];
    o->mine.aux2 = o->arr[1];
    o->redop = o->mine.desc.op = op;
    o->send = o->mine.send = sendBuf;
    o->recv = o->mine.recv = recvBuf;
    hc_op_access(o, sendBuf, extent * es, 0, "sendBuf");
    hc_op_access(o, recvBuf, recvCount * es, 1, "recvBuf");
    return launch(c, o, stream);
}

/* ------------------------------------------------------------------ gathers, broadcast, scatter */

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                         aclrtStream stream)
{
    static const char *const F = "HcclAllGather";
    if (sendCount == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendBuf, "sendBuf");
    NEED_PTR(recvBuf, "recvBuf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "sendCount", sendCount));
    TRY(check_dtype(F, "dataType", dataType, 0, 0));
    uint64_t bytes = sendCount * hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, bytes));
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, bytes * c->nranks));
    hc_op *o = new_op(c, F, HCCL_CMD_ALLGATHER, ha_allgather, dataType, sendCount);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->send = o->mine.send = sendBuf;
    o->recv = o->mine.recv = recvBuf;
    hc_op_access(o, sendBuf, bytes, 0, "sendBuf");
    hc_op_access(o, recvBuf, bytes * c->nranks, 1, "recvBuf");
    return launch(c, o, stream);
}

HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                          const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclAllGatherV";
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(recvCounts, "recvCounts");
    NEED_PTR(recvDispls, "recvDispls");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    const uint64_t *rc = recvCounts, *rd = recvDispls;
    const uint32_t n = c->nranks;
    uint64_t extent = 0, total = 0;
    for (uint32_t q = 0; q < n; ++q) {
        TRY(check_count(F, "recvCounts[i]", rc[q]));
        total += rc[q];
        if (rc[q] && rd[q] + rc[q] > extent)
            extent = rd[q] + rc[q];
    }
    if (rc[c->rank] != sendCount)
        TRY(hc_fail(HCCL_E_PARA, F, "sendCount %" PRIu64 " differs from recvCounts[%u] = %" PRIu64 " (this rank's "
                    "block)", sendCount, c->rank, rc[c->rank]));
    if (total == 0) {
        hc_comm_put(c);
        return HCCL_SUCCESS;
    }
    if (sendCount)
        NEED_PTR(sendBuf, "sendBuf");
    NEED_PTR(recvBuf, "recvBuf");
    TRY(check_dtype(F, "dataType", dataType, 0, 0));
    size_t es = hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, sendCount * es));
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, extent * es));
    hc_op *o = new_op(c, F, HCCL_CMD_ALLGATHER_V, ha_allgather_v, dataType, sendCount);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->mine.desc.count = 0;
    o->mine.desc.local = sendCount;
    o->mine.desc.shape_hash = hash_u64s(rc, n);
    o->arr[0] = copy_u64s(rc, n);
    o->arr[1] = copy_u64s(rd, n);
    if (!o->arr[0] || !o->arr[1]) {
        hc_op_free(o);
        TRY(hc_fail(HCCL_E_MEMORY, F, "out of memory"));
    }
    o->send = o->mine.send = sendBuf;
    o->recv = o->mine.recv = recvBuf;
    hc_op_access(o, sendBuf, sendCount * es, 0, "sendBuf");
    hc_op_access(o, recvBuf, extent * es, 1, "recvBuf");
    return launch(c, o, stream);
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                         aclrtStream stream)
{
    static const char *const F = "HcclBroadcast";
    if (count == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(buf, "buf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "count", count));
    TRY(check_dtype(F, "dataType", dataType, 0, 0));
    TRY(check_root(c, F, root));
    uint64_t bytes = count * hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, "buf", buf, bytes));
    hc_op *o = new_op(c, F, HCCL_CMD_BROADCAST, ha_broadcast, dataType, count);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->root = o->mine.desc.root = root;
    o->recv = o->mine.recv = buf;
    hc_op_access(o, buf, bytes, c->rank != root, "buf");
    return launch(c, o, stream);
}

HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                       HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclScatter";
    if (recvCount == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(recvBuf, "recvBuf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "recvCount", recvCount));
    TRY(check_dtype(F, "dataType", dataType, 0, 0));
    TRY(check_root(c, F, root));
    uint64_t bytes = recvCount * hr_dtype_size(dataType);
    if (c->rank == root) {          /* only the root's send buffer is read: the others may pass NULL */
        NEED_PTR(sendBuf, "sendBuf (on the root)");
        TRY(hc_check_buffer(c, F, "sendBuf", sendBuf, bytes * c->nranks));
    }
    TRY(hc_check_buffer(c, F, "recvBuf", recvBuf, bytes));
    hc_op *o = new_op(c, F, HCCL_CMD_SCATTER, ha_scatter, dataType, recvCount);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->root = o->mine.desc.root = root;
    o->send = o->mine.send = c->rank == root ? sendBuf : NULL;
    o->recv = o->mine.recv = recvBuf;
    if (c->rank == root)
        hc_op_access(o, sendBuf, bytes * c->nranks, 0, "sendBuf");
    hc_op_access(o, recvBuf, bytes, 1, "recvBuf");
    return launch(c, o, stream);
}

/* ------------------------------------------------------------------ all to all */

/* The V form: arr[0..3] = send counts, send displacements, recv counts, recv displacements. */
static HcclResult alltoall_common(hc_comm *c, const char *F, uint32_t cmd, const void *sendBuf, HcclDataType sendType,
                                  const void *recvBuf, HcclDataType recvType, uint64_t *arr[4], uint64_t shape_hash,
                                  aclrtStream stream)
{
    const uint32_t n = c->nranks;
    HcclResult e = check_dtype(F, "sendType", sendType, 0, 0);
    if (e == HCCL_SUCCESS)
        e = check_dtype(F, "recvType", recvType, 0, 0);
    if (e == HCCL_SUCCESS && sendType != recvType)
        e = hc_fail(HCCL_E_PARA, F, "sendType %s and recvType %s differ: they must be the same",
                    hr_dtype_name(sendType), hr_dtype_name(recvType));
    uint64_t sext = 0, rext = 0, stotal = 0, rtotal = 0;
    for (uint32_t q = 0; q < n && e == HCCL_SUCCESS; ++q) {
        e = check_count(F, "a count", arr[0][q]);
        if (e == HCCL_SUCCESS)
            e = check_count(F, "a count", arr[2][q]);
        stotal += arr[0][q];
        rtotal += arr[2][q];
        if (arr[0][q] && arr[1][q] + arr[0][q] > sext)
            sext = arr[1][q] + arr[0][q];
        if (arr[2][q] && arr[3][q] + arr[2][q] > rext)
            rext = arr[3][q] + arr[2][q];
    }
    if (e == HCCL_SUCCESS && stotal && !sendBuf)
        e = hc_fail(HCCL_E_PTR, F, "sendBuf is NULL");
    if (e == HCCL_SUCCESS && rtotal && !recvBuf)
        e = hc_fail(HCCL_E_PTR, F, "recvBuf is NULL");
    size_t es = hr_dtype_size(sendType);
    if (e == HCCL_SUCCESS)
        e = hc_check_buffer(c, F, "sendBuf", sendBuf, sext * es);
    if (e == HCCL_SUCCESS)
        e = hc_check_buffer(c, F, "recvBuf", recvBuf, rext * es);
    hc_op *o = e == HCCL_SUCCESS ? new_op(c, F, cmd, ha_alltoallv, sendType, 0) : NULL;
    if (e == HCCL_SUCCESS && !o)
        e = HCCL_E_MEMORY;
    if (e != HCCL_SUCCESS) {
        for (int j = 0; j < 4; ++j)
            free(arr[j]);
        hc_comm_put(c);
        return e;
    }
    for (int j = 0; j < 4; ++j)
        o->arr[j] = arr[j];
    o->mine.desc.shape_hash = shape_hash;
    o->mine.aux = o->arr[0];
    o->mine.aux2 = o->arr[1];
    o->send = o->mine.send = (void *)(uintptr_t)sendBuf;
    o->recv = o->mine.recv = (void *)(uintptr_t)recvBuf;
    hc_op_access(o, sendBuf, sext * es, 0, "sendBuf");
    hc_op_access(o, recvBuf, rext * es, 1, "recvBuf");
    return launch(c, o, stream);
}

static int alloc_arrays(uint64_t *arr[4], uint32_t n)
{
    for (int j = 0; j < 4; ++j)
        arr[j] = calloc(n, sizeof *arr[j]);
    if (arr[0] && arr[1] && arr[2] && arr[3])
        return 0;
    for (int j = 0; j < 4; ++j)
        free(arr[j]);
    return -1;
}

HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                        uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclAlltoAll";
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    if (sendCount != recvCount)
        TRY(hc_fail(HCCL_E_PARA, F, "sendCount %" PRIu64 " and recvCount %" PRIu64 " differ: every rank sends each "
                    "peer as many elements as it receives from each", sendCount, recvCount));
    if (sendCount == 0) {
        hc_comm_put(c);
        return HCCL_SUCCESS;
    }
    uint64_t *arr[4];
    if (alloc_arrays(arr, c->nranks) != 0)
        TRY(hc_fail(HCCL_E_MEMORY, F, "out of memory"));
    for (uint32_t q = 0; q < c->nranks; ++q) {
        arr[0][q] = arr[2][q] = sendCount;
        arr[1][q] = arr[3][q] = (uint64_t)q * sendCount;
    }
    hc_comm *cc = c;
    c = NULL;
    return alltoall_common(cc, F, HCCL_CMD_ALLTOALL, sendBuf, sendType, recvBuf, recvType, arr, sendCount, stream);
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts, const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclAlltoAllV";
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendCounts, "sendCounts");
    NEED_PTR(sdispls, "sdispls");
    NEED_PTR(recvCounts, "recvCounts");
    NEED_PTR(rdispls, "rdispls");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    uint64_t *arr[4] = {copy_u64s(sendCounts, c->nranks), copy_u64s(sdispls, c->nranks),
                        copy_u64s(recvCounts, c->nranks), copy_u64s(rdispls, c->nranks)};
    if (!arr[0] || !arr[1] || !arr[2] || !arr[3]) {
        for (int j = 0; j < 4; ++j)
            free(arr[j]);
        TRY(hc_fail(HCCL_E_MEMORY, F, "out of memory"));
    }
    hc_comm *cc = c;
    c = NULL;
    return alltoall_common(cc, F, HCCL_CMD_ALLTOALLV, sendBuf, sendType, recvBuf, recvType, arr, 0, stream);
}

HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                          const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclAlltoAllVC";
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(sendCountMatrix, "sendCountMatrix");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    const uint32_t n = c->nranks, r = c->rank;
    const uint64_t *m = sendCountMatrix;
    uint64_t *arr[4];
    if (alloc_arrays(arr, n) != 0)
        TRY(hc_fail(HCCL_E_MEMORY, F, "out of memory"));
    uint64_t sofs = 0, rofs = 0;
    for (uint32_t q = 0; q < n; ++q) {
        arr[0][q] = m[(size_t)r * n + q];
        arr[1][q] = sofs;
        sofs += arr[0][q];
        arr[2][q] = m[(size_t)q * n + r];
        arr[3][q] = rofs;
        rofs += arr[2][q];
    }
    uint64_t h = hash_u64s(m, (size_t)n * n);
    hc_comm *cc = c;
    c = NULL;
    return alltoall_common(cc, F, HCCL_CMD_ALLTOALLVC, sendBuf, sendType, recvBuf, recvType, arr, h, stream);
}

/* ------------------------------------------------------------------ point to point */

static HcclResult p2p(const char *F, int is_send, void *buf, uint64_t count, HcclDataType dataType, uint32_t peer,
                      HcclComm comm, aclrtStream stream)
{
    if (count == 0)
        return HCCL_SUCCESS;
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    NEED_PTR(buf, is_send ? "sendBuf" : "recvBuf");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    TRY(check_count(F, "count", count));
    TRY(check_dtype(F, "dataType", dataType, 0, 0));
    if (peer >= c->nranks || peer == c->rank)
        TRY(hc_fail(HCCL_E_PARA, F, "%s %u is not another rank of the comm (rank %u of %u)",
                    is_send ? "destRank" : "srcRank", peer, c->rank, c->nranks));
    uint64_t bytes = count * hr_dtype_size(dataType);
    TRY(hc_check_buffer(c, F, is_send ? "sendBuf" : "recvBuf", buf, bytes));
    hc_op *o = new_op(c, F, is_send ? HCCL_CMD_SEND : HCCL_CMD_RECEIVE, is_send ? ha_send : ha_recv, dataType, count);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->p2p = 1;
    o->sends_only = is_send;
    o->p2p_bytes = (size_t)bytes;
    o->root = peer;
    if (is_send)
        o->send = buf;
    else
        o->recv = buf;
    hc_op_access(o, buf, bytes, !is_send, is_send ? "sendBuf" : "recvBuf");
    return launch(c, o, stream);
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                    aclrtStream stream)
{
    return p2p("HcclSend", 1, sendBuf, count, dataType, destRank, comm, stream);
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                    aclrtStream stream)
{
    return p2p("HcclRecv", 0, recvBuf, count, dataType, srcRank, comm, stream);
}

HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm, aclrtStream stream)
{
    static const char *const F = "HcclBatchSendRecv";
    hc_comm *c = NULL;
    NEED_PTR(comm, "comm");
    if (itemNum == 0)
        return HCCL_SUCCESS;
    NEED_PTR(sendRecvInfo, "sendRecvInfo");
    HcclResult err;
    c = begin(comm, F, stream, &err);
    if (!c)
        return err;
    int all_sends = 1;
    for (uint32_t i = 0; i < itemNum; ++i) {
        const HcclSendRecvItem *it = &sendRecvInfo[i];
        if (it->sendRecvType != HCCL_SEND && it->sendRecvType != HCCL_RECV)
            TRY(hc_fail(HCCL_E_PARA, F, "sendRecvInfo[%u].sendRecvType is %d: HCCL_SEND (0) or HCCL_RECV (1)", i,
                        (int)it->sendRecvType));
        all_sends &= it->sendRecvType == HCCL_SEND;
        if (it->count == 0)
            continue;
        if (!it->buf)
            TRY(hc_fail(HCCL_E_PTR, F, "sendRecvInfo[%u].buf is NULL", i));
        TRY(check_count(F, "sendRecvInfo[i].count", it->count));
        TRY(check_dtype(F, "sendRecvInfo[i].dataType", it->dataType, 0, 0));
        if (it->remoteRank >= c->nranks || it->remoteRank == c->rank)
            TRY(hc_fail(HCCL_E_PARA, F, "sendRecvInfo[%u].remoteRank %u is not another rank of the comm (rank %u of "
                        "%u)", i, it->remoteRank, c->rank, c->nranks));
        TRY(hc_check_buffer(c, F, "sendRecvInfo[i].buf", it->buf, it->count * hr_dtype_size(it->dataType)));
    }
    hc_op *o = new_op(c, F, HCCL_CMD_BATCH_SEND_RECV, ha_batch, 0, 0);
    if (!o)
        TRY(HCCL_E_MEMORY);
    o->p2p = 1;
    o->sends_only = all_sends;
    o->items = malloc(itemNum * sizeof *o->items);
    if (!o->items) {
        hc_op_free(o);
        TRY(hc_fail(HCCL_E_MEMORY, F, "out of memory"));
    }
    memcpy(o->items, sendRecvInfo, itemNum * sizeof *o->items);
    o->nitems = itemNum;
    for (uint32_t i = 0; i < itemNum; ++i)
        hc_op_access(o, sendRecvInfo[i].buf, sendRecvInfo[i].count * hr_dtype_size(sendRecvInfo[i].dataType),
                     sendRecvInfo[i].sendRecvType == HCCL_RECV, "sendRecvInfo[i].buf");
    return launch(c, o, stream);
}
