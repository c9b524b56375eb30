/*
 * pyacl_hardgrad embedded runtime: libhcomm's internals shared with libhccl.
 *
 *   libhcomm.so  (hcomm/)  communicators, root info and rendezvous, transports (engines),
 *                          error strings, rank queries, groups
 *   libhccl.so   (hccl/)   the collective operations: argument checks, algorithms, reductions
 *
 * A communicator (hc_comm) is one rank of a group of ranks that met at a rendezvous (or were
 * made together by HcclCommInitAll).  Its engine moves bytes between the ranks:
 *
 *   inproc  ranks of one process: each reads the others' buffers directly (hc_engine.direct)
 *   shm     processes of one host: a POSIX shared memory segment per communicator
 *   net     ranks on several hosts: the engine plugin of hg_net.h (libhg_net_gloo.so)
 *
 * Every call below that talks to the other ranks runs on a stream's worker thread (a task
 * submitted by libhccl), in the same order on every rank.  Nothing here is public API.
 */
#ifndef PYACL_HARDGRAD_HCOMM_HC_INTERNAL_H_
#define PYACL_HARDGRAD_HCOMM_HC_INTERNAL_H_

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hg_internal.h"
#include "hccl/hccl_types.h"
#include "hccl/hccl_comm.h"

/* Set the thread's error text ("<func>: <message>", aclGetRecentErrMsg) and log it; returns code. */
HG_INTERNAL HcclResult hc_fail_at(HcclResult code, const char *func, const char *located_fmt, ...) HG_PRINTF(3, 4);
#define hc_fail(code, func, ...) hc_fail_at((code), (func), HG_LOC __FILE__ ":" HG_STR(__LINE__) HG_LOC __VA_ARGS__)

/* ------------------------------------------------------------------ collective descriptors */

/* What every rank says about the collective it is about to run; ranks compare them first. */
typedef struct hc_desc {
    uint32_t cmd;          /* HcclCMDType */
    uint32_t dtype;        /* HcclDataType (send type) */
    uint32_t dtype2;       /* recv type where there is one, else = dtype */
    uint32_t op;           /* HcclReduceOp, or 0 */
    uint32_t root;         /* root rank, or 0 */
    uint32_t pad;
    uint64_t count;        /* the count every rank must agree on */
    uint64_t shape_hash;   /* hash of count arrays every rank must agree on (V variants), or 0 */
    uint64_t local;        /* this rank's own figure (checked by the algorithm), not compared */
    uint64_t seq;          /* the communicator's operation number */
} hc_desc;

/* What the inproc engine shows of each rank after a meet. */
typedef struct hc_peer {
    hc_desc desc;
    const void *send;
    void *recv;
    const void *aux;       /* the rank's count or displacement arrays, when the algorithm needs them */
    const void *aux2;
} hc_peer;

typedef struct hc_comm hc_comm;

/* One transfer of a batch of point-to-point transfers. */
typedef struct hc_xfer {
    int is_send;
    void *buf;
    size_t bytes;
    uint32_t peer;
} hc_xfer;

/* ------------------------------------------------------------------ engines */

typedef struct hc_engine {
    const char *name;      /* "inproc", "shm", "net" */
    int direct;            /* peers' buffers readable: hc_meet's peers[] hold their pointers */
    /* Exchange descriptors (and, direct, pointers); every rank gets every rank's.  */
    HcclResult (*meet)(hc_comm *c, const hc_peer *mine, hc_peer *all);
    HcclResult (*barrier)(hc_comm *c);
    HcclResult (*allgather)(hc_comm *c, const void *send, void *recv, size_t bytes);
    HcclResult (*alltoallv)(hc_comm *c, const void *send, const size_t *scounts, const size_t *sdispls,
                            void *recv, const size_t *rcounts, const size_t *rdispls);
    HcclResult (*broadcast)(hc_comm *c, void *buf, size_t bytes, uint32_t root);
    HcclResult (*send)(hc_comm *c, const void *buf, size_t bytes, uint32_t peer);
    HcclResult (*recv)(hc_comm *c, void *buf, size_t bytes, uint32_t peer);
    /* Several sends and receives progressed together (NULL: the sends, which never block, then
     * the receives). */
    HcclResult (*batch)(hc_comm *c, const hc_xfer *x, uint32_t n);
    /* Windowed engines (shm): a scratch area per rank visible to all, win_bytes long, two of
     * them (which 0 or 1); NULL for the others. */
    void *(*window)(hc_comm *c, uint32_t rank, int which);
    size_t win_bytes;
    void (*close)(hc_comm *c);
} hc_engine;

#define HC_COMM_MAGIC 0x4d4d4f43u   /* "COMM" while alive */

struct hc_comm {
    uint32_t magic;
    uint32_t rank, nranks;
    int device;                     /* the rank's device */
    const hc_engine *engine;
    void *eng;                      /* the engine's state */
    char name[COMM_NAME_MAX_LENGTH];
    uint64_t seq;                   /* operations run (worker side) */
    atomic_int async_error;         /* first HcclResult an operation met on the stream */
    atomic_int refs;                /* the handle + operations in flight */
    int exec_timeout_ms;            /* how long a rank waits for its peers inside an operation */
};

/* The communicator behind a handle, with a reference the caller drops with hc_comm_put; NULL
 * (error text set, *err = HCCL_E_PTR for NULL, HCCL_E_PARA for a handle that is not a live
 * communicator) otherwise. */
HG_INTERNAL hc_comm *hc_comm_get(HcclComm handle, const char *func, HcclResult *err);
HG_INTERNAL void hc_comm_put(hc_comm *c);
/* Record the first error an operation met on the stream (kept for HcclGetCommAsyncError). */
HG_INTERNAL void hc_comm_async_error(hc_comm *c, HcclResult code);

/* Ranks meet for one operation: descriptors compared (a mismatch fails every rank with
 * HCCL_E_PARA and a message naming the field and the ranks), peers[] filled (nranks entries). */
HG_INTERNAL HcclResult hc_meet(hc_comm *c, const char *func, const hc_peer *mine, hc_peer *peers);

/* ------------------------------------------------------------------ operations */

typedef struct hc_op hc_op;
/* The algorithm of an operation, on the stream's worker: peers[] from the meet (NULL for
 * point-to-point operations, which do not meet).  It must run the whole protocol even when it
 * finds an error of its own (the other ranks wait for it), then return the error. */
typedef HcclResult (*hc_algo_fn)(hc_comm *c, hc_op *op, const hc_peer *peers);

#define HC_OP_ARRAYS 4
struct hc_op {
    hc_comm *c;                /* a reference, dropped when the op is freed */
    const char *func;
    hc_peer mine;              /* descriptor and buffers shown to the others */
    hc_algo_fn algo;
    int p2p;                   /* no meet: point to point (send, recv, batch) */
    int sends_only;            /* p2p op that only sends (buffered): runs first in a group */
    size_t p2p_bytes;          /* HcclSend / HcclRecv: bytes moved (op->root is the peer) */
    const void *send;
    void *recv;
    uint64_t count;
    uint32_t dtype, dtype2, redop, root;
    uint64_t *arr[HC_OP_ARRAYS];   /* owned copies of count/displacement arrays */
    HcclSendRecvItem *items;       /* owned copy (batch send/recv) */
    uint32_t nitems;
    hg_access acc[HG_MAX_ACCESSES];    /* what it reads and writes (checking mode) */
    int nacc;
    hc_op *next;                   /* in a group */
};

/* A new operation of c (takes a reference on c); NULL with the error text set. */
HG_INTERNAL hc_op *hc_op_new(hc_comm *c, const char *func, uint32_t cmd, hc_algo_fn algo);
HG_INTERNAL void hc_op_free(hc_op *op);
/* Declare a buffer the operation reads (write 0) or writes (write 1), for checking mode. */
HG_INTERNAL void hc_op_access(hc_op *op, const void *p, uint64_t bytes, int write, const char *what);
/* Enqueue op on stream (or keep it for HcclGroupEnd inside a group).  The op is consumed
 * whatever the outcome. */
HG_INTERNAL HcclResult hc_op_submit(hc_op *op, aclrtStream stream);

/* Shared argument checks of the operations (error text set, HCCL's codes). */
HG_INTERNAL HcclResult hc_check_stream(hc_comm *c, const char *func, aclrtStream stream);
HG_INTERNAL HcclResult hc_check_buffer(hc_comm *c, const char *func, const char *name, const void *p,
                                       uint64_t bytes);

/* Timeouts from the environment, in ms: HCCL_CONNECT_TIMEOUT (rendezvous), HCCL_EXEC_TIMEOUT
 * (waiting for peers inside an operation). */
HG_INTERNAL int hc_connect_timeout_ms(void);
HG_INTERNAL int hc_exec_timeout_ms(void);

/* Monotonic milliseconds. */
HG_INTERNAL int64_t hc_now_ms(void);

#endif /* PYACL_HARDGRAD_HCOMM_HC_INTERNAL_H_ */
