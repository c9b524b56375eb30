/*
 * pyacl_hardgrad: HCCL's collective operations (libhccl.so), with the communicator API of
 * hccl_comm.h and the types of hccl_types.h.
 *
 * Every operation is enqueued on `stream` and returns at once; it runs in the stream's order
 * where it meets the same operation of the other ranks.  Counts are in elements of dataType.
 * Names and prototypes follow HCCL's public ABI.  Valid C99/C11 and C++.
 */
#ifndef PYACL_HARDGRAD_HCCL_HCCL_H_
#define PYACL_HARDGRAD_HCCL_HCCL_H_

#include "hccl/hccl_types.h"
#include "hccl/hccl_comm.h"
#include "acl/acl.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* recvBuf = sendBuf of rank 0 op sendBuf of rank 1 op ..., on every rank. */
ACL_FUNC_VISIBILITY HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                             HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* buf of rank root lands in buf on every rank. */
ACL_FUNC_VISIBILITY HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                             HcclComm comm, aclrtStream stream);

/* Block r (recvCount elements) of the reduction of every rank's sendBuf lands on rank r. */
ACL_FUNC_VISIBILITY HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                                 HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                                 aclrtStream stream);

/* As HcclReduceScatter with block r at sendDispls[r], sendCounts[r] elements long (uint64 arrays). */
ACL_FUNC_VISIBILITY HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                                  void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                                  HcclReduceOp op, HcclComm comm, aclrtStream stream);

/* Block r (recvCount elements) of sendBuf on rank root lands in recvBuf on rank r. */
ACL_FUNC_VISIBILITY HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                           uint32_t root, HcclComm comm, aclrtStream stream);

/* sendBuf of rank r lands at block r of recvBuf on every rank. */
ACL_FUNC_VISIBILITY HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                             HcclDataType dataType, HcclComm comm, aclrtStream stream);

/* As HcclAllGather with rank r's block at recvDispls[r], recvCounts[r] elements long. */
ACL_FUNC_VISIBILITY HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                              const void *recvCounts, const void *recvDispls,
                                              HcclDataType dataType, HcclComm comm, aclrtStream stream);

/* Point to point: count elements to destRank, from srcRank. */
ACL_FUNC_VISIBILITY HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                        HcclComm comm, aclrtStream stream);
ACL_FUNC_VISIBILITY HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                        HcclComm comm, aclrtStream stream);

/* All to all with the counts of every rank: sendCountMatrix[i * rankSize + j] elements go from
 * rank i to rank j, packed in rank order in both buffers. */
ACL_FUNC_VISIBILITY HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                              const void *recvBuf, HcclDataType recvType, HcclComm comm,
                                              aclrtStream stream);

/* All to all with per-peer counts and displacements (uint64 arrays, in elements). */
ACL_FUNC_VISIBILITY HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                             HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                             const void *rdispls, HcclDataType recvType, HcclComm comm,
                                             aclrtStream stream);

/* All to all with sendCount elements for every peer. */
ACL_FUNC_VISIBILITY HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                            const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                                            HcclComm comm, aclrtStream stream);

/* The reduction of every rank's sendBuf lands in recvBuf on rank root. */
ACL_FUNC_VISIBILITY HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                          HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);

/* Several sends and receives to and from any ranks, progressed together (no ordering deadlock). */
ACL_FUNC_VISIBILITY HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                                 aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_HCCL_HCCL_H_ */
