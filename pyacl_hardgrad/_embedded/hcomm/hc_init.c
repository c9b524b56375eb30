/* Communicator creation: root info, rank tables, HcclCommInitAll; groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_internal.h"

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    if (!rootInfo)
        return hc_fail(HCCL_E_PTR, "HcclGetRootInfo", "rootInfo is NULL");
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclGetRootInfo", "not implemented yet");
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm)
{
    (void)nRanks; (void)rootInfo; (void)rank; (void)comm;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclCommInitRootInfo", "not implemented yet");
}

HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                      const HcclCommConfig *config, HcclComm *comm)
{
    (void)nRanks; (void)rootInfo; (void)rank; (void)comm; (void)config;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclCommInitRootInfoConfig", "not implemented yet");
}

HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    (void)ndev; (void)devices; (void)comms;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclCommInitAll", "not implemented yet");
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    (void)clusterInfo; (void)rank; (void)comm;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclCommInitClusterInfo", "not implemented yet");
}

HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                         HcclComm *comm)
{
    (void)clusterInfo; (void)rank; (void)comm; (void)config;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclCommInitClusterInfoConfig", "not implemented yet");
}

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    (void)comm; (void)stream;
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclBarrier", "not implemented yet");
}

HcclResult HcclGroupStart(void)
{
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclGroupStart", "not implemented yet");
}

HcclResult HcclGroupEnd(void)
{
    return hc_fail(HCCL_E_NOT_SUPPORT, "HcclGroupEnd", "not implemented yet");
}

HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    if (!isGroupEnabled)
        return hc_fail(HCCL_E_PTR, "HcclGroupStatusGet", "isGroupEnabled is NULL");
    *isGroupEnabled = false;
    return HCCL_SUCCESS;
}
