/* libhccl's private declarations: the reduction kernels and the algorithms. */
#ifndef PYACL_HARDGRAD_HCCL_HCCL_INTERNAL_H_
#define PYACL_HARDGRAD_HCCL_HCCL_INTERNAL_H_

#include "hc_internal.h"
#include "hccl/hccl.h"

/* ------------------------------------------------------------------ reductions (hccl_reduce.c) */

/* acc = x (converted), acc = acc op x, out = acc (rounded once): reductions run in rank order
 * 0, 1, 2, ... through an accumulator (fp32 for fp16 and bf16, the element type otherwise). */
typedef struct hr_kernel {
    size_t esize;        /* bytes of an element in the buffers */
    size_t asize;        /* bytes of an accumulator element */
    void (*load)(void *acc, const void *x, size_t n);
    void (*comb)(void *acc, const void *x, size_t n);
    void (*store)(void *out, const void *acc, size_t n);
} hr_kernel;

/* The kernel of (dtype, op), NULL when the pair is not reducible. */
const hr_kernel *hr_get(uint32_t dtype, uint32_t op);
/* Bytes of an element (0: not a data type). */
size_t hr_dtype_size(uint32_t dtype);
const char *hr_dtype_name(uint32_t dtype);
const char *hr_op_name(uint32_t op);
/* Accumulator elements per block of the algorithms. */
#define HR_BLOCK 4096

/* ------------------------------------------------------------------ algorithms (hccl_algo.c) */

HcclResult ha_allreduce(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_reduce(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_reduce_scatter(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_reduce_scatter_v(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_allgather(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_allgather_v(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_broadcast(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_scatter(hc_comm *c, hc_op *op, const hc_peer *peers);
/* AlltoAll, AlltoAllV, AlltoAllVC, all as V: arr[0] send counts, arr[1] send displacements,
 * arr[2] receive counts, arr[3] receive displacements (elements). */
HcclResult ha_alltoallv(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_send(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_recv(hc_comm *c, hc_op *op, const hc_peer *peers);
HcclResult ha_batch(hc_comm *c, hc_op *op, const hc_peer *peers);

#endif /* PYACL_HARDGRAD_HCCL_HCCL_INTERNAL_H_ */
