/* Calls for what a CPU cannot do: sharing memory or events with other processes (IPC),
 * virtual memory management, and kernels compiled for the NPU.  Each answers, as CANN's
 * runtime does for a feature a platform lacks, ACL_ERROR_RT_FEATURE_NOT_SUPPORT (also the
 * thread's last error) with the reason in aclGetRecentErrMsg. */
#include "unsupported.h"

static const char *const kIpc = "not supported: the embedded runtime shares no memory or events with other "
                                "processes (IPC)";
static const char *const kVmm = "not supported: the embedded runtime has no device address space to reserve or "
                                "map physical memory into (use aclrtMalloc)";
static const char *const kKernel = "not supported: kernels compiled for the NPU cannot run on the CPU";

HG_UNSUPPORTED(aclrtIpcMemGetExportKey, kIpc, (void *devPtr, size_t size, char *key, size_t len, uint64_t flags),
               (void)devPtr; (void)size; (void)key; (void)len; (void)flags)
HG_UNSUPPORTED(aclrtIpcMemClose, kIpc, (const char *key), (void)key)
HG_UNSUPPORTED(aclrtIpcMemImportByKey, kIpc, (void **devPtr, const char *key, uint64_t flags),
               (void)devPtr; (void)key; (void)flags)
HG_UNSUPPORTED(aclrtIpcMemSetImportPid, kIpc, (const char *key, int32_t *pid, size_t num),
               (void)key; (void)pid; (void)num)
HG_UNSUPPORTED(aclrtIpcMemSetAttr, kIpc, (const char *key, aclrtIpcMemAttrType type, uint64_t attr),
               (void)key; (void)type; (void)attr)
HG_UNSUPPORTED(aclrtIpcGetEventHandle, kIpc, (aclrtEvent event, aclrtIpcEventHandle *handle),
               (void)event; (void)handle)
HG_UNSUPPORTED(aclrtIpcOpenEventHandle, kIpc, (aclrtIpcEventHandle handle, aclrtEvent *event),
               (void)handle; (void)event)
HG_UNSUPPORTED(aclrtReserveMemAddress, kVmm,
               (void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags),
               (void)virPtr; (void)size; (void)alignment; (void)expectPtr; (void)flags)
HG_UNSUPPORTED(aclrtReleaseMemAddress, kVmm, (void *virPtr), (void)virPtr)
HG_UNSUPPORTED(aclrtMallocPhysical, kVmm,
               (aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags),
               (void)handle; (void)size; (void)prop; (void)flags)
HG_UNSUPPORTED(aclrtFreePhysical, kVmm, (aclrtDrvMemHandle handle), (void)handle)
HG_UNSUPPORTED(aclrtMapMem, kVmm, (void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags),
               (void)virPtr; (void)size; (void)offset; (void)handle; (void)flags)
HG_UNSUPPORTED(aclrtUnmapMem, kVmm, (void *virPtr), (void)virPtr)
HG_UNSUPPORTED(aclrtMemExportToShareableHandle, kIpc,
               (aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags, uint64_t *shareableHandle),
               (void)handle; (void)handleType; (void)flags; (void)shareableHandle)
HG_UNSUPPORTED(aclrtMemImportFromShareableHandle, kIpc,
               (uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle *handle),
               (void)shareableHandle; (void)deviceId; (void)handle)
HG_UNSUPPORTED(aclrtMemSetPidToShareableHandle, kIpc, (uint64_t shareableHandle, int32_t *pid, size_t pidNum),
               (void)shareableHandle; (void)pid; (void)pidNum)
HG_UNSUPPORTED(aclrtMemGetAllocationGranularity, kVmm,
               (aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option, size_t *granularity),
               (void)prop; (void)option; (void)granularity)
HG_UNSUPPORTED(aclrtBinaryLoadFromFile, kKernel,
               (const char *binPath, aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle),
               (void)binPath; (void)options; (void)binHandle)
HG_UNSUPPORTED(aclrtBinaryUnLoad, kKernel, (aclrtBinHandle binHandle), (void)binHandle)
HG_UNSUPPORTED(aclrtBinaryGetFunction, kKernel,
               (const aclrtBinHandle binHandle, const char *kernelName, aclrtFuncHandle *funcHandle),
               (void)binHandle; (void)kernelName; (void)funcHandle)
HG_UNSUPPORTED(aclrtLaunchKernel, kKernel,
               (aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize,
                aclrtStream stream),
               (void)funcHandle; (void)numBlocks; (void)argsData; (void)argsSize; (void)stream)
