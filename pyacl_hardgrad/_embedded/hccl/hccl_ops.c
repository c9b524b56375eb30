/* Collective operations (stub until the algorithms land). */
#include "hc_internal.h"
#include "hccl/hccl.h"

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)recvBuf;
    (void)count;
    (void)dataType;
    (void)op;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclAllReduce", "not implemented yet");
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm, aclrtStream stream)
{
    (void)buf;
    (void)count;
    (void)dataType;
    (void)root;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclBroadcast", "not implemented yet");
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)recvBuf;
    (void)recvCount;
    (void)dataType;
    (void)op;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclReduceScatter", "not implemented yet");
}

HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)sendCounts;
    (void)sendDispls;
    (void)recvBuf;
    (void)recvCount;
    (void)dataType;
    (void)op;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclReduceScatterV", "not implemented yet");
}

HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)recvBuf;
    (void)recvCount;
    (void)dataType;
    (void)root;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclScatter", "not implemented yet");
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)recvBuf;
    (void)sendCount;
    (void)dataType;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclAllGather", "not implemented yet");
}

HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts, const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)sendCount;
    (void)recvBuf;
    (void)recvCounts;
    (void)recvDispls;
    (void)dataType;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclAllGatherV", "not implemented yet");
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)count;
    (void)dataType;
    (void)destRank;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclSend", "not implemented yet");
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm, aclrtStream stream)
{
    (void)recvBuf;
    (void)count;
    (void)dataType;
    (void)srcRank;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclRecv", "not implemented yet");
}

HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType, const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)sendCountMatrix;
    (void)sendType;
    (void)recvBuf;
    (void)recvType;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclAlltoAllVC", "not implemented yet");
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls, HcclDataType sendType, const void *recvBuf, const void *recvCounts, const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)sendCounts;
    (void)sdispls;
    (void)sendType;
    (void)recvBuf;
    (void)recvCounts;
    (void)rdispls;
    (void)recvType;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclAlltoAllV", "not implemented yet");
}

HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)sendCount;
    (void)sendType;
    (void)recvBuf;
    (void)recvCount;
    (void)recvType;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclAlltoAll", "not implemented yet");
}

HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    (void)sendBuf;
    (void)recvBuf;
    (void)count;
    (void)dataType;
    (void)op;
    (void)root;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclReduce", "not implemented yet");
}

HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm, aclrtStream stream)
{
    (void)sendRecvInfo;
    (void)itemNum;
    (void)comm;
    (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclBatchSendRecv", "not implemented yet");
}
