/*
 * pyacl_hardgrad: HCCL's communicator management (libhcomm.so; libhccl.so carries it too
 * through its dependency): creating communicators from a root info, a rank table or a list of
 * devices, rank queries, barrier, groups, error strings, configuration.
 *
 * Names and prototypes follow HCCL's public ABI (CANN 9's hccl/hccl_comm.h).  Valid C99/C11
 * and C++.  Calls whose device meaning has no host counterpart (memory ranges, physical
 * memory activation, symmetric windows) are declared and return HCCL_E_NOT_SUPPORT with the
 * reason in the log and aclGetRecentErrMsg().
 */
#ifndef PYACL_HARDGRAD_HCCL_HCCL_COMM_H_
#define PYACL_HARDGRAD_HCCL_HCCL_COMM_H_

#include "hccl/hccl_types.h"
#include "acl/acl.h"

#ifndef PYACL_HARDGRAD_CDEF
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#endif

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Communicator of rank `rank` described by the rank table JSON file clusterInfo. */
ACL_FUNC_VISIBILITY HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
ACL_FUNC_VISIBILITY HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                                             HcclCommConfig *config, HcclComm *comm);

/* A fresh rendezvous: its address, port and nonce written into rootInfo. */
ACL_FUNC_VISIBILITY HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);

/* Join rank `rank` of nRanks at the rendezvous of rootInfo; returns once every rank joined. */
ACL_FUNC_VISIBILITY HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                    HcclComm *comm);
ACL_FUNC_VISIBILITY HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                                          uint32_t rank, const HcclCommConfig *config,
                                                          HcclComm *comm);

/* ndev ranks of this process, rank i on devices[i], created from the calling thread. */
ACL_FUNC_VISIBILITY HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

ACL_FUNC_VISIBILITY HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
ACL_FUNC_VISIBILITY HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);

/* The communicator's name (at most COMM_NAME_MAX_LENGTH bytes with the NUL). */
ACL_FUNC_VISIBILITY HcclResult HcclGetCommName(HcclComm comm, char *commName);

ACL_FUNC_VISIBILITY HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
ACL_FUNC_VISIBILITY HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);

/* Every rank reached this point of its stream. */
ACL_FUNC_VISIBILITY HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

ACL_FUNC_VISIBILITY HcclResult HcclCommDestroy(HcclComm comm);

/* The first error an operation of comm met on its stream (HCCL_SUCCESS when none). */
ACL_FUNC_VISIBILITY HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

ACL_FUNC_VISIBILITY const char *HcclGetErrorString(HcclResult code);

/* Bit i set: the library reads HcclCommConfig's field number i (HcclCommConfigCapability). */
ACL_FUNC_VISIBILITY uint32_t HcclGetCommConfigCapability(void);

#ifndef PYACL_HARDGRAD_CDEF
/* Fill config with its header and "not set" in every field. */
static inline void HcclCommConfigInit(HcclCommConfig *config)
{
    struct {
        size_t size;
        uint32_t magicWord;
        uint32_t version;
        uint64_t reserved;
    } header;
    if (config == NULL) {
        return;
    }
    header.size = sizeof(HcclCommConfig);
    header.magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
    header.version = HCCL_COMM_CONFIG_VERSION;
    header.reserved = 0;
    memset(config, 0, sizeof(*config));
    memcpy(config->reserved, &header, sizeof(header));
    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
    config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
    config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
    config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
    config->aclGraphZeroCopyEnable = 0;
    config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
    config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
    config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}
#endif

/* Device virtual memory ranges and physical memory handles: no host meaning here. */
ACL_FUNC_VISIBILITY HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
                                                      size_t alignment, uint64_t flags);
ACL_FUNC_VISIBILITY HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
ACL_FUNC_VISIBILITY HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                                          aclrtDrvMemHandle handle, uint64_t flags);
ACL_FUNC_VISIBILITY HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);

/* Group the calls of this thread up to HcclGroupEnd, which launches them together. */
ACL_FUNC_VISIBILITY HcclResult HcclGroupStart(void);
ACL_FUNC_VISIBILITY HcclResult HcclGroupEnd(void);
ACL_FUNC_VISIBILITY HcclResult HcclGroupStatusGet(bool *isGroupEnabled);

/* Symmetric memory windows. */
ACL_FUNC_VISIBILITY HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                                      HcclCommSymWindow *winHandle, uint32_t flag);
ACL_FUNC_VISIBILITY HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
ACL_FUNC_VISIBILITY HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                                                 HcclCommSymWindow *winHandle, size_t *offset);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_HCCL_HCCL_COMM_H_ */
