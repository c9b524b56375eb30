/* The communicator API of hccl_comm.h, also defined by libhccl.so: programs and ctypes users
 * that link or load libhccl alone (CANN 8's layout, where it held everything) find every HCCL
 * function there.  Each forwards to libhcomm's definition, looked up in libhcomm itself (not
 * in the global scope, where the first definition found may be this one). */
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "hccl_internal.h"

static void *hcomm_sym(const char *name)
{
    static _Atomic(void *) lib;
    void *h = atomic_load_explicit(&lib, memory_order_acquire);
    if (!h) {
        h = dlopen("libhcomm.so", RTLD_NOW | RTLD_NOLOAD);
        atomic_store_explicit(&lib, h, memory_order_release);
    }
    void *s = h ? dlsym(h, name) : NULL;
    if (!s)
        hc_fail(HCCL_E_INTERNAL, name, "libhcomm.so (libhccl.so's dependency) does not define %s", name);
    return s;
}

#define FORWARD(RET, NAME, PARAMS, ARGS, ON_MISSING)                                                \
    RET NAME PARAMS                                                                                 \
    {                                                                                               \
        typedef RET(*fn_t) PARAMS;                                                                  \
        static _Atomic(void *) cached;                                                              \
        void *p = atomic_load_explicit(&cached, memory_order_acquire);                              \
        if (!p) {                                                                                   \
            p = hcomm_sym(#NAME);                                                                   \
            if (!p)                                                                                 \
                return ON_MISSING;                                                                  \
            atomic_store_explicit(&cached, p, memory_order_release);                                \
        }                                                                                           \
        fn_t fn;                                                                                    \
        memcpy(&fn, &p, sizeof fn);                                                                 \
        return fn ARGS;                                                                             \
    }

FORWARD(HcclResult, HcclCommInitClusterInfo, (const char *clusterInfo, uint32_t rank, HcclComm *comm),
        (clusterInfo, rank, comm), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommInitClusterInfoConfig,
        (const char *clusterInfo, uint32_t rank, HcclCommConfig *config, HcclComm *comm),
        (clusterInfo, rank, config, comm), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGetRootInfo, (HcclRootInfo *rootInfo), (rootInfo), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommInitRootInfo, (uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
        HcclComm *comm), (nRanks, rootInfo, rank, comm), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommInitRootInfoConfig, (uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
        const HcclCommConfig *config, HcclComm *comm), (nRanks, rootInfo, rank, config, comm), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommInitAll, (uint32_t ndev, int32_t *devices, HcclComm *comms), (ndev, devices, comms),
        HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclSetConfig, (HcclConfig config, HcclConfigValue configValue), (config, configValue),
        HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGetConfig, (HcclConfig config, HcclConfigValue *configValue), (config, configValue),
        HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGetCommName, (HcclComm comm, char *commName), (comm, commName), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGetRankSize, (HcclComm comm, uint32_t *rankSize), (comm, rankSize), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGetRankId, (HcclComm comm, uint32_t *rank), (comm, rank), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclBarrier, (HcclComm comm, aclrtStream stream), (comm, stream), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommDestroy, (HcclComm comm), (comm), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGetCommAsyncError, (HcclComm comm, HcclResult *asyncError), (comm, asyncError),
        HCCL_E_INTERNAL)
FORWARD(const char *, HcclGetErrorString, (HcclResult code), (code), "unknown error")
FORWARD(uint32_t, HcclGetCommConfigCapability, (void), (), 0)
FORWARD(HcclResult, HcclCommSetMemoryRange, (HcclComm comm, void *baseVirPtr, size_t size, size_t alignment,
        uint64_t flags), (comm, baseVirPtr, size, alignment, flags), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommUnsetMemoryRange, (HcclComm comm, void *baseVirPtr), (comm, baseVirPtr),
        HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommActivateCommMemory, (HcclComm comm, void *virPtr, size_t size, size_t offset,
        aclrtDrvMemHandle handle, uint64_t flags), (comm, virPtr, size, offset, handle, flags), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommDeactivateCommMemory, (HcclComm comm, void *virPtr), (comm, virPtr), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGroupStart, (void), (), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGroupEnd, (void), (), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclGroupStatusGet, (bool *isGroupEnabled), (isGroupEnabled), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommSymWinRegister, (HcclComm comm, void *addr, uint64_t size, HcclCommSymWindow *winHandle,
        uint32_t flag), (comm, addr, size, winHandle, flag), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommSymWinDeregister, (HcclCommSymWindow winHandle), (winHandle), HCCL_E_INTERNAL)
FORWARD(HcclResult, HcclCommSymWinGet, (HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
        size_t *offset), (comm, ptr, size, winHandle, offset), HCCL_E_INTERNAL)
