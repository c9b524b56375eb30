/* The rest of CANN's public runtime API that a CPU device cannot carry out: each call answers
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000, also the thread's last error) and names itself and
 * the reason in aclGetRecentErrMsg, touching none of its arguments (unsupported.h).  Grouped by
 * reason; docs/runtime-coverage.md is generated from these definitions. */
#include <stddef.h>

#include "acl/acl_dump.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "unsupported.h"

static const char *const kKernel = "not supported: kernels and binaries compiled for the NPU (Ascend C), and the stack and "
                                   "printf limits of such kernels, cannot be loaded, launched or applied on the CPU";
static const char *const kModel = "not supported: model run instances, labels and stream switching capture tasks into a model "
                                  "that the NPU's task scheduler replays; the embedded runtime runs each task as it is "
                                  "launched";
static const char *const kDump = "not supported: dumps record the tensors of operators and models run by the NPU's graph "
                                 "engine; the embedded runtime runs no models";
static const char *const kIpc = "not supported: the embedded runtime shares no memory, notifies or events with other "
                                "processes (IPC)";
static const char *const kVmm = "not supported: the embedded runtime has no device address space to reserve, map or set "
                                "access on (use aclrtMalloc)";
static const char *const kManaged = "not supported: managed memory and registered host memory need the driver's shared virtual "
                                    "addressing between host and device";
static const char *const kTdtChannel = "not supported: tensor data transfer channels feed the data-input operator of a model "
                                       "running on the device; the embedded runtime runs no models";
static const char *const kQueue = "not supported: data queues and their buffers (mbufs) are managed by the device's AI CPU "
                                  "scheduler, which the embedded runtime does not have";
static const char *const kGroup = "not supported: the embedded device has no AI Core groups to partition";
static const char *const kRas = "not supported: memory error (UCE) repair and task abort act on the NPU's hardware fault "
                                "handling, which a CPU device does not have";
static const char *const kSnapshot = "not supported: process snapshots back up and restore NPU device state";
static const char *const kCmo = "not supported: cache maintenance operations act on the NPU's L2 cache";
static const char *const kPci = "not supported: the embedded device is not a PCI device and has no bus id";
static const char *const kHwAddr = "not supported: the address asked for is a register of the NPU, which a CPU device does not "
                                   "have";
static const char *const kNotify = "not supported: notifies are hardware synchronisation objects of the NPU's task schedulers; "
                                   "use events (aclrtCreateEvent)";
static const char *const kSdmaDesc = "not supported: memcpy descriptors and conditional copies are programs for the NPU's SDMA "
                                     "engine; use aclrtMemcpyAsync";
static const char *const kProf = "not supported: profiling trace points are recorded by the NPU's profiling unit";
static const char *const kEngine = "not supported: the task needs an NPU engine (random-number generator, task scheduler "
                                   "memory) a CPU device does not have";
static const char *const kExcInfo = "not supported: cached task op info feeds the NPU's exception dump, which the embedded "
                                    "runtime does not produce";
static const char *const kTodo = "not supported by the embedded runtime yet: the call has a host meaning that is not "
                                 "implemented";

/* ---------------------------------------------------------------- Kernel */
HG_UNSUPPORTED(aclrtBinarySetExceptionCallback, kKernel, (aclrtBinHandle binHandle, aclrtOpExceptionCallback callback, void *userData),
               (void)binHandle; (void)callback; (void)userData)
HG_UNSUPPORTED(aclrtGetSymbolAddress, kKernel, (const void *symbol, void **devPtr),
               (void)symbol; (void)devPtr)
HG_UNSUPPORTED(aclrtGetSymbolSize, kKernel, (const void *symbol, size_t *size),
               (void)symbol; (void)size)
HG_UNSUPPORTED(aclrtMemcpyFromSymbol, kKernel, (void *dst, size_t dstMax, const void *symbol, size_t count, size_t offset, aclrtMemcpyKind kind),
               (void)dst; (void)dstMax; (void)symbol; (void)count; (void)offset; (void)kind)
HG_UNSUPPORTED(aclrtMemcpyFromSymbolAsync, kKernel, (void *dst, size_t dstMax, const void *symbol, size_t count, size_t offset, aclrtMemcpyKind kind, aclrtStream stream),
               (void)dst; (void)dstMax; (void)symbol; (void)count; (void)offset; (void)kind; (void)stream)
HG_UNSUPPORTED(aclrtMemcpyToSymbol, kKernel, (const void *symbol, const void *src, size_t count, size_t offset, aclrtMemcpyKind kind),
               (void)symbol; (void)src; (void)count; (void)offset; (void)kind)
HG_UNSUPPORTED(aclrtMemcpyToSymbolAsync, kKernel, (const void *symbol, const void *src, size_t count, size_t offset, aclrtMemcpyKind kind, aclrtStream stream),
               (void)symbol; (void)src; (void)count; (void)offset; (void)kind; (void)stream)
HG_UNSUPPORTED_VALUE(aclrtBinary, aclrtCreateBinary, kKernel, NULL, (const void *data, size_t dataLen),
               (void)data; (void)dataLen)
HG_UNSUPPORTED(aclrtDestroyBinary, kKernel, (aclrtBinary binary),
               (void)binary)
HG_UNSUPPORTED(aclrtBinaryLoad, kKernel, (const aclrtBinary binary, aclrtBinHandle *binHandle),
               (void)binary; (void)binHandle)
HG_UNSUPPORTED(aclrtBinaryGetDevAddress, kKernel, (const aclrtBinHandle binHandle, void **binAddr, size_t *binSize),
               (void)binHandle; (void)binAddr; (void)binSize)
HG_UNSUPPORTED(aclrtBinaryGetFunctionByEntry, kKernel, (aclrtBinHandle binHandle, uint64_t funcEntry, aclrtFuncHandle *funcHandle),
               (void)binHandle; (void)funcEntry; (void)funcHandle)
HG_UNSUPPORTED(aclrtBinaryGetGlobal, kKernel, (aclrtBinHandle binHandle, const char *name, void **dptr, size_t *size),
               (void)binHandle; (void)name; (void)dptr; (void)size)
HG_UNSUPPORTED(aclrtGetFuncBySymbol, kKernel, (const void *symbol, aclrtFuncHandle *funcHandle),
               (void)symbol; (void)funcHandle)
HG_UNSUPPORTED(aclrtGetFunctionAddr, kKernel, (aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr),
               (void)funcHandle; (void)aicAddr; (void)aivAddr)
HG_UNSUPPORTED(aclrtGetFunctionSize, kKernel, (aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize),
               (void)funcHandle; (void)aicSize; (void)aivSize)
HG_UNSUPPORTED(aclrtKernelArgsGetHandleMemSize, kKernel, (aclrtFuncHandle funcHandle, size_t *memSize),
               (void)funcHandle; (void)memSize)
HG_UNSUPPORTED(aclrtKernelArgsGetMemSize, kKernel, (aclrtFuncHandle funcHandle, size_t userArgsSize, size_t *actualArgsSize),
               (void)funcHandle; (void)userArgsSize; (void)actualArgsSize)
HG_UNSUPPORTED(aclrtKernelArgsInit, kKernel, (aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle),
               (void)funcHandle; (void)argsHandle)
HG_UNSUPPORTED(aclrtKernelArgsInitByUserMem, kKernel, (aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, void *userHostMem, size_t actualArgsSize),
               (void)funcHandle; (void)argsHandle; (void)userHostMem; (void)actualArgsSize)
HG_UNSUPPORTED(aclrtKernelArgsAppend, kKernel, (aclrtArgsHandle argsHandle, void *param, size_t paramSize, aclrtParamHandle *paramHandle),
               (void)argsHandle; (void)param; (void)paramSize; (void)paramHandle)
HG_UNSUPPORTED(aclrtKernelArgsAppendPlaceHolder, kKernel, (aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle),
               (void)argsHandle; (void)paramHandle)
HG_UNSUPPORTED(aclrtKernelArgsGetPlaceHolderBuffer, kKernel, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, size_t dataSize, void **bufferAddr),
               (void)argsHandle; (void)paramHandle; (void)dataSize; (void)bufferAddr)
HG_UNSUPPORTED(aclrtKernelArgsParaUpdate, kKernel, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param, size_t paramSize),
               (void)argsHandle; (void)paramHandle; (void)param; (void)paramSize)
HG_UNSUPPORTED(aclrtLaunchKernelWithConfig, kKernel, (aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream, aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve),
               (void)funcHandle; (void)numBlocks; (void)stream; (void)cfg; (void)argsHandle; (void)reserve)
HG_UNSUPPORTED(aclmdlRIKernelTaskGetAttribute, kKernel, (aclmdlRITask task, aclrtLaunchKernelAttrId attrId, aclrtLaunchKernelAttrValue *attrValue),
               (void)task; (void)attrId; (void)attrValue)
HG_UNSUPPORTED(aclrtKernelArgsFinalize, kKernel, (aclrtArgsHandle argsHandle),
               (void)argsHandle)
HG_UNSUPPORTED(aclrtGetFunctionName, kKernel, (aclrtFuncHandle funcHandle, uint32_t maxLen, char *name),
               (void)funcHandle; (void)maxLen; (void)name)
HG_UNSUPPORTED(aclrtBinaryLoadFromData, kKernel, (const void *data, size_t length, const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle),
               (void)data; (void)length; (void)options; (void)binHandle)
HG_UNSUPPORTED(aclrtRegisterCpuFunc, kKernel, (const aclrtBinHandle handle, const char *funcName, const char *kernelName, aclrtFuncHandle *funcHandle),
               (void)handle; (void)funcName; (void)kernelName; (void)funcHandle)
HG_UNSUPPORTED(aclrtLaunchKernelV2, kKernel, (aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream),
               (void)funcHandle; (void)numBlocks; (void)argsData; (void)argsSize; (void)cfg; (void)stream)
HG_UNSUPPORTED(aclrtLaunchKernelWithHostArgs, kKernel, (aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum),
               (void)funcHandle; (void)numBlocks; (void)stream; (void)cfg; (void)hostArgs; (void)argsSize; (void)placeHolderArray; (void)placeHolderNum)
HG_UNSUPPORTED(aclrtLaunchKernelWithArgsArray, kKernel, (void *func, uint32_t numBlocks, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void **args),
               (void)func; (void)numBlocks; (void)stream; (void)cfg; (void)args)
HG_UNSUPPORTED(aclrtLaunchSIMTKernelWithArgsArray, kKernel, (void *func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void **args),
               (void)func; (void)gridDim; (void)blockDim; (void)dynUbufSize; (void)stream; (void)cfg; (void)args)
HG_UNSUPPORTED(aclrtLaunchSIMTKernelWithHostArgs, kKernel, (void *func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum),
               (void)func; (void)gridDim; (void)blockDim; (void)dynUbufSize; (void)stream; (void)cfg; (void)hostArgs; (void)argsSize; (void)placeHolderArray; (void)placeHolderNum)
HG_UNSUPPORTED(aclrtGetFunctionAttribute, kKernel, (aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType, int64_t *attrValue),
               (void)funcHandle; (void)attrType; (void)attrValue)
HG_UNSUPPORTED(aclrtFunctionGetBinary, kKernel, (const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle),
               (void)funcHandle; (void)binHandle)
HG_UNSUPPORTED(aclrtFunctionGetParamCount, kKernel, (const void *func, size_t *paramCount),
               (void)func; (void)paramCount)
HG_UNSUPPORTED(aclrtFunctionGetParamInfo, kKernel, (const void *func, size_t paramIndex, size_t *paramOffset, size_t *paramSize),
               (void)func; (void)paramIndex; (void)paramOffset; (void)paramSize)
HG_UNSUPPORTED(aclrtFunctionGetAvailDynUbufPerBlock, kKernel, (void *func, uint32_t flags, size_t *dynamicUbufSize),
               (void)func; (void)flags; (void)dynamicUbufSize)
HG_UNSUPPORTED(aclrtDeviceSetLimit, kKernel, (aclrtDeviceLimit limit, size_t value),
               (void)limit; (void)value)
HG_UNSUPPORTED(aclrtDeviceGetLimit, kKernel, (aclrtDeviceLimit limit, size_t *value),
               (void)limit; (void)value)

/* ---------------------------------------------------------------- Model */
HG_UNSUPPORTED(aclmdlRITaskGetParams, kModel, (aclmdlRITask task, aclmdlRITaskParams *params),
               (void)task; (void)params)
HG_UNSUPPORTED(aclmdlRITaskSetParams, kModel, (aclmdlRITask task, aclmdlRITaskParams *params),
               (void)task; (void)params)
HG_UNSUPPORTED(aclmdlRIUpdate, kModel, (aclmdlRI modelRI),
               (void)modelRI)
HG_UNSUPPORTED(aclmdlRITaskDisable, kModel, (aclmdlRITask task),
               (void)task)
HG_UNSUPPORTED(aclrtCreateLabel, kModel, (aclrtLabel *label),
               (void)label)
HG_UNSUPPORTED(aclrtSetLabel, kModel, (aclrtLabel label, aclrtStream stream),
               (void)label; (void)stream)
HG_UNSUPPORTED(aclrtDestroyLabel, kModel, (aclrtLabel label),
               (void)label)
HG_UNSUPPORTED(aclrtCreateLabelList, kModel, (aclrtLabel *labels, size_t num, aclrtLabelList *labelList),
               (void)labels; (void)num; (void)labelList)
HG_UNSUPPORTED(aclrtDestroyLabelList, kModel, (aclrtLabelList labelList),
               (void)labelList)
HG_UNSUPPORTED(aclrtSwitchLabelByIndex, kModel, (void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream),
               (void)ptr; (void)maxValue; (void)labelList; (void)stream)
HG_UNSUPPORTED(aclrtActiveStream, kModel, (aclrtStream activeStream, aclrtStream stream),
               (void)activeStream; (void)stream)
HG_UNSUPPORTED(aclrtSwitchStream, kModel, (void *leftValue, aclrtCondition cond, void *rightValue, aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream, aclrtStream stream),
               (void)leftValue; (void)cond; (void)rightValue; (void)dataType; (void)trueStream; (void)falseStream; (void)stream)
HG_UNSUPPORTED(aclmdlRICaptureBegin, kModel, (aclrtStream stream, aclmdlRICaptureMode mode),
               (void)stream; (void)mode)
HG_UNSUPPORTED(aclmdlRICaptureGetInfo, kModel, (aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI),
               (void)stream; (void)status; (void)modelRI)
HG_UNSUPPORTED(aclmdlRICaptureEnd, kModel, (aclrtStream stream, aclmdlRI *modelRI),
               (void)stream; (void)modelRI)
HG_UNSUPPORTED(aclmdlRIDebugPrint, kModel, (aclmdlRI modelRI),
               (void)modelRI)
HG_UNSUPPORTED(aclmdlRIDebugJsonPrint, kModel, (aclmdlRI modelRI, const char *path, uint32_t flags),
               (void)modelRI; (void)path; (void)flags)
HG_UNSUPPORTED(aclmdlRICaptureThreadExchangeMode, kModel, (aclmdlRICaptureMode *mode),
               (void)mode)
HG_UNSUPPORTED(aclmdlRIExecuteAsync, kModel, (aclmdlRI modelRI, aclrtStream stream),
               (void)modelRI; (void)stream)
HG_UNSUPPORTED(aclmdlRIExecute, kModel, (aclmdlRI modelRI, int32_t timeout),
               (void)modelRI; (void)timeout)
HG_UNSUPPORTED(aclmdlRIDestroy, kModel, (aclmdlRI modelRI),
               (void)modelRI)
HG_UNSUPPORTED(aclmdlRICaptureTaskGrpBegin, kModel, (aclrtStream stream),
               (void)stream)
HG_UNSUPPORTED(aclmdlRICaptureTaskGrpEnd, kModel, (aclrtStream stream, aclrtTaskGrp *handle),
               (void)stream; (void)handle)
HG_UNSUPPORTED(aclmdlRICaptureTaskUpdateBegin, kModel, (aclrtStream stream, aclrtTaskGrp handle),
               (void)stream; (void)handle)
HG_UNSUPPORTED(aclmdlRICaptureTaskUpdateEnd, kModel, (aclrtStream stream),
               (void)stream)
HG_UNSUPPORTED(aclmdlRIBuildBegin, kModel, (aclmdlRI *modelRI, uint32_t flag),
               (void)modelRI; (void)flag)
HG_UNSUPPORTED(aclmdlRIBindStream, kModel, (aclmdlRI modelRI, aclrtStream stream, uint32_t flag),
               (void)modelRI; (void)stream; (void)flag)
HG_UNSUPPORTED(aclmdlRIEndTask, kModel, (aclmdlRI modelRI, aclrtStream stream),
               (void)modelRI; (void)stream)
HG_UNSUPPORTED(aclmdlRIBuildEnd, kModel, (aclmdlRI modelRI, void *reserve),
               (void)modelRI; (void)reserve)
HG_UNSUPPORTED(aclmdlRIUnbindStream, kModel, (aclmdlRI modelRI, aclrtStream stream),
               (void)modelRI; (void)stream)
HG_UNSUPPORTED(aclmdlRISetName, kModel, (aclmdlRI modelRI, const char *name),
               (void)modelRI; (void)name)
HG_UNSUPPORTED(aclmdlRIGetName, kModel, (aclmdlRI modelRI, uint32_t maxLen, char *name),
               (void)modelRI; (void)maxLen; (void)name)
HG_UNSUPPORTED(aclmdlRIGetId, kModel, (aclmdlRI modelRI, uint32_t *modelRIId),
               (void)modelRI; (void)modelRIId)
HG_UNSUPPORTED(aclmdlRIDestroyRegisterCallback, kModel, (aclmdlRI modelRI, aclrtCallback func, void *userData),
               (void)modelRI; (void)func; (void)userData)
HG_UNSUPPORTED(aclmdlRIDestroyUnregisterCallback, kModel, (aclmdlRI modelRI, aclrtCallback func),
               (void)modelRI; (void)func)
HG_UNSUPPORTED(aclmdlRIGetStreams, kModel, (aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams),
               (void)modelRI; (void)streams; (void)numStreams)
HG_UNSUPPORTED(aclmdlRIGetTasksByStream, kModel, (aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks),
               (void)stream; (void)tasks; (void)numTasks)
HG_UNSUPPORTED(aclmdlRITaskGetType, kModel, (aclmdlRITask task, aclmdlRITaskType *type),
               (void)task; (void)type)
HG_UNSUPPORTED(aclmdlRITaskGetSeqId, kModel, (aclmdlRITask task, uint32_t *id),
               (void)task; (void)id)
HG_UNSUPPORTED(aclrtTaskUpdateAsync, kModel, (aclrtStream taskStream, uint32_t taskId, aclrtTaskUpdateInfo *info, aclrtStream execStream),
               (void)taskStream; (void)taskId; (void)info; (void)execStream)
HG_UNSUPPORTED(aclmdlRIAbort, kModel, (aclmdlRI modelRI),
               (void)modelRI)
HG_UNSUPPORTED(aclmdlRICondHandleCreate, kModel, (aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle),
               (void)modelRI; (void)defaultLaunchValue; (void)flag; (void)handle)
HG_UNSUPPORTED(aclmdlRICondHandleGetCondPtr, kModel, (aclmdlRICondHandle handle, uint64_t **ptr),
               (void)handle; (void)ptr)
HG_UNSUPPORTED(aclmdlRIAddCondTask, kModel, (aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags),
               (void)params; (void)stream; (void)flags)
HG_UNSUPPORTED(aclmdlRICaptureToModelRIBegin, kModel, (aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode),
               (void)stream; (void)modelRI; (void)mode)
HG_UNSUPPORTED(aclrtPersistentTaskClean, kModel, (aclrtStream stream),
               (void)stream)

/* ---------------------------------------------------------------- Dump */
HG_UNSUPPORTED(aclmdlInitDump, kDump, (void),
               (void)0)
HG_UNSUPPORTED(aclmdlSetDump, kDump, (const char *dumpCfgPath),
               (void)dumpCfgPath)
HG_UNSUPPORTED(aclmdlFinalizeDump, kDump, (void),
               (void)0)
HG_UNSUPPORTED(acldumpRegCallback, kDump, (int32_t (* const messageCallback)(const acldumpChunk *, int32_t), int32_t flag),
               (void)messageCallback; (void)flag)
HG_UNSUPPORTED_VALUE(void, acldumpUnregCallback, kDump, , (void),
               (void)0)
HG_UNSUPPORTED(aclopStartDumpArgs, kDump, (uint32_t dumpType, const char *path),
               (void)dumpType; (void)path)
HG_UNSUPPORTED(aclopStopDumpArgs, kDump, (uint32_t dumpType),
               (void)dumpType)
HG_UNSUPPORTED_VALUE(const char *, acldumpGetPath, kDump, NULL, (acldumpType dumpType),
               (void)dumpType)
HG_UNSUPPORTED(acldumpSaveExceptionInfo, kDump, (const char *fileName, const char *userTag, const acldumpTensorInfo *tensors, size_t tensorCount),
               (void)fileName; (void)userTag; (void)tensors; (void)tensorCount)
HG_UNSUPPORTED(acldumpGetExceptionInfoPath, kDump, (char *path, size_t maxLen),
               (void)path; (void)maxLen)

/* ---------------------------------------------------------------- Ipc */
HG_UNSUPPORTED(aclrtMemExportToShareableHandleV2, kIpc, (aclrtDrvMemHandle handle, uint64_t flags, aclrtMemSharedHandleType shareType, void *shareableHandle),
               (void)handle; (void)flags; (void)shareType; (void)shareableHandle)
HG_UNSUPPORTED(aclrtMemImportFromShareableHandleV2, kIpc, (void *shareableHandle, aclrtMemSharedHandleType shareType, uint64_t flags, aclrtDrvMemHandle *handle),
               (void)shareableHandle; (void)shareType; (void)flags; (void)handle)
HG_UNSUPPORTED(aclrtMemSetPidToShareableHandleV2, kIpc, (void *shareableHandle, aclrtMemSharedHandleType shareType, int32_t *pid, size_t pidNum),
               (void)shareableHandle; (void)shareType; (void)pid; (void)pidNum)
HG_UNSUPPORTED(aclrtIpcMemImportPidInterServer, kIpc, (const char *key, aclrtServerPid *serverPids, size_t num),
               (void)key; (void)serverPids; (void)num)
HG_UNSUPPORTED(aclrtNotifyGetExportKey, kIpc, (aclrtNotify notify, char *key, size_t len, uint64_t flags),
               (void)notify; (void)key; (void)len; (void)flags)
HG_UNSUPPORTED(aclrtNotifyImportByKey, kIpc, (aclrtNotify *notify, const char *key, uint64_t flags),
               (void)notify; (void)key; (void)flags)
HG_UNSUPPORTED(aclrtNotifySetImportPid, kIpc, (aclrtNotify notify, int32_t *pid, size_t num),
               (void)notify; (void)pid; (void)num)
HG_UNSUPPORTED(aclrtNotifySetImportPidInterServer, kIpc, (aclrtNotify notify, aclrtServerPid *serverPids, size_t num),
               (void)notify; (void)serverPids; (void)num)

/* ---------------------------------------------------------------- Vmm */
HG_UNSUPPORTED(aclrtMemMapNoAccess, kVmm, (void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags),
               (void)virPtr; (void)size; (void)offset; (void)handle; (void)flags)
HG_UNSUPPORTED(aclrtMemSetAccess, kVmm, (void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count),
               (void)virPtr; (void)size; (void)desc; (void)count)
HG_UNSUPPORTED(aclrtMemGetAccess, kVmm, (void *virPtr, aclrtMemLocation *location, uint64_t *flag),
               (void)virPtr; (void)location; (void)flag)
HG_UNSUPPORTED(aclrtMemRetainAllocationHandle, kVmm, (void *virPtr, aclrtDrvMemHandle *handle),
               (void)virPtr; (void)handle)
HG_UNSUPPORTED(aclrtMemGetAllocationPropertiesFromHandle, kVmm, (aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop),
               (void)handle; (void)prop)
HG_UNSUPPORTED(aclrtReserveMemAddressNoUCMemory, kVmm, (void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags),
               (void)virPtr; (void)size; (void)alignment; (void)expectPtr; (void)flags)
HG_UNSUPPORTED(aclrtMemGetAddressRange, kVmm, (void *ptr, void **pbase, size_t *psize),
               (void)ptr; (void)pbase; (void)psize)
HG_UNSUPPORTED(aclrtMemP2PMap, kVmm, (void *devPtr, size_t size, int32_t dstDevId, uint64_t flags),
               (void)devPtr; (void)size; (void)dstDevId; (void)flags)
HG_UNSUPPORTED(aclrtMemMapSelectedLink, kVmm, (void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx),
               (void)virPtrDst; (void)size; (void)virPtrSrc; (void)linkIdx)
HG_UNSUPPORTED(aclrtMemMapSetLink, kVmm, (aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink),
               (void)handle; (void)adviceLink)

/* ---------------------------------------------------------------- Managed */
HG_UNSUPPORTED(aclrtMemManagedGetAttr, kManaged, (aclrtMemManagedRangeAttribute attribute, const void *ptr, size_t size, void *data, size_t dataSize),
               (void)attribute; (void)ptr; (void)size; (void)data; (void)dataSize)
HG_UNSUPPORTED(aclrtMemManagedGetAttrs, kManaged, (aclrtMemManagedRangeAttribute *attributes, size_t numAttributes, const void *ptr, size_t size, void **data, size_t *dataSizes),
               (void)attributes; (void)numAttributes; (void)ptr; (void)size; (void)data; (void)dataSizes)
HG_UNSUPPORTED(aclrtHostRegister, kManaged, (void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr),
               (void)ptr; (void)size; (void)type; (void)devPtr)
HG_UNSUPPORTED(aclrtHostRegisterV2, kManaged, (void *ptr, uint64_t size, uint32_t flag),
               (void)ptr; (void)size; (void)flag)
HG_UNSUPPORTED(aclrtHostGetDevicePointer, kManaged, (void *pHost, void **pDevice, uint32_t flag),
               (void)pHost; (void)pDevice; (void)flag)
HG_UNSUPPORTED(aclrtHostUnregister, kManaged, (void *ptr),
               (void)ptr)
HG_UNSUPPORTED(aclrtHostMemMapCapabilities, kManaged, (uint32_t deviceId, aclrtHacType hacType, aclrtHostMemMapCapability *capabilities),
               (void)deviceId; (void)hacType; (void)capabilities)
HG_UNSUPPORTED(aclrtMemAllocManaged, kManaged, (void **ptr, uint64_t size, uint32_t flag),
               (void)ptr; (void)size; (void)flag)
HG_UNSUPPORTED(aclrtMemManagedAdvise, kManaged, (const void * const ptr, uint64_t size, aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location),
               (void)ptr; (void)size; (void)advise; (void)location)
HG_UNSUPPORTED(aclrtMemManagedPrefetchAsync, kManaged, (const void *ptr, size_t size, aclrtMemManagedLocation location, uint32_t flags, aclrtStream stream),
               (void)ptr; (void)size; (void)location; (void)flags; (void)stream)
HG_UNSUPPORTED(aclrtMemManagedPrefetchBatchAsync, kManaged, (const void **ptrs, size_t *sizes, size_t count, aclrtMemManagedLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, uint64_t flags, aclrtStream stream),
               (void)ptrs; (void)sizes; (void)count; (void)prefetchLocs; (void)prefetchLocIdxs; (void)numPrefetchLocs; (void)flags; (void)stream)

/* ---------------------------------------------------------------- TdtChannel */
HG_UNSUPPORTED(acltdtStopChannel, kTdtChannel, (acltdtChannelHandle *handle),
               (void)handle)
HG_UNSUPPORTED_VALUE(acltdtChannelHandle *, acltdtCreateChannel, kTdtChannel, NULL, (uint32_t deviceId, const char *name),
               (void)deviceId; (void)name)
HG_UNSUPPORTED_VALUE(acltdtChannelHandle *, acltdtCreateChannelWithCapacity, kTdtChannel, NULL, (uint32_t deviceId, const char *name, size_t capacity),
               (void)deviceId; (void)name; (void)capacity)
HG_UNSUPPORTED(acltdtDestroyChannel, kTdtChannel, (acltdtChannelHandle *handle),
               (void)handle)
HG_UNSUPPORTED(acltdtCleanChannel, kTdtChannel, (acltdtChannelHandle *handle),
               (void)handle)
HG_UNSUPPORTED(acltdtSendTensor, kTdtChannel, (const acltdtChannelHandle *handle, const acltdtDataset *dataset, int32_t timeout),
               (void)handle; (void)dataset; (void)timeout)
HG_UNSUPPORTED(acltdtReceiveTensor, kTdtChannel, (const acltdtChannelHandle *handle, acltdtDataset *dataset, int32_t timeout),
               (void)handle; (void)dataset; (void)timeout)
HG_UNSUPPORTED(acltdtQueryChannelSize, kTdtChannel, (const acltdtChannelHandle *handle, size_t *size),
               (void)handle; (void)size)

/* ---------------------------------------------------------------- Queue */
HG_UNSUPPORTED(aclrtGetBufFromChain, kQueue, (aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf),
               (void)headBuf; (void)index; (void)buf)
HG_UNSUPPORTED(aclrtGetBufChainNum, kQueue, (aclrtMbuf headBuf, uint32_t *num),
               (void)headBuf; (void)num)
HG_UNSUPPORTED(aclrtAppendBufChain, kQueue, (aclrtMbuf headBuf, aclrtMbuf buf),
               (void)headBuf; (void)buf)
HG_UNSUPPORTED(aclrtCopyBufRef, kQueue, (const aclrtMbuf buf, aclrtMbuf *newBuf),
               (void)buf; (void)newBuf)
HG_UNSUPPORTED(aclrtGetBufUserData, kQueue, (const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset),
               (void)buf; (void)dataPtr; (void)size; (void)offset)
HG_UNSUPPORTED(aclrtSetBufUserData, kQueue, (aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset),
               (void)buf; (void)dataPtr; (void)size; (void)offset)
HG_UNSUPPORTED(aclrtGetBufData, kQueue, (const aclrtMbuf buf, void **dataPtr, size_t *size),
               (void)buf; (void)dataPtr; (void)size)
HG_UNSUPPORTED(aclrtGetBufDataLen, kQueue, (aclrtMbuf buf, size_t *len),
               (void)buf; (void)len)
HG_UNSUPPORTED(aclrtSetBufDataLen, kQueue, (aclrtMbuf buf, size_t len),
               (void)buf; (void)len)
HG_UNSUPPORTED(aclrtFreeBuf, kQueue, (aclrtMbuf buf),
               (void)buf)
HG_UNSUPPORTED(aclrtAllocBuf, kQueue, (aclrtMbuf *buf, size_t size),
               (void)buf; (void)size)
HG_UNSUPPORTED_VALUE(acltdtTensorType, acltdtGetTensorTypeFromItem, kQueue, ACL_TENSOR_DATA_UNDEFINED, (const acltdtDataItem *dataItem),
               (void)dataItem)
HG_UNSUPPORTED_VALUE(aclDataType, acltdtGetDataTypeFromItem, kQueue, ACL_DT_UNDEFINED, (const acltdtDataItem *dataItem),
               (void)dataItem)
HG_UNSUPPORTED_VALUE(void *, acltdtGetDataAddrFromItem, kQueue, NULL, (const acltdtDataItem *dataItem),
               (void)dataItem)
HG_UNSUPPORTED_VALUE(size_t, acltdtGetDataSizeFromItem, kQueue, 0, (const acltdtDataItem *dataItem),
               (void)dataItem)
HG_UNSUPPORTED_VALUE(size_t, acltdtGetDimNumFromItem, kQueue, 0, (const acltdtDataItem *dataItem),
               (void)dataItem)
HG_UNSUPPORTED(acltdtGetSliceInfoFromItem, kQueue, (const acltdtDataItem *dataItem, size_t *sliceNum, size_t *sliceId),
               (void)dataItem; (void)sliceNum; (void)sliceId)
HG_UNSUPPORTED(acltdtGetDimsFromItem, kQueue, (const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum),
               (void)dataItem; (void)dims; (void)dimNum)
HG_UNSUPPORTED_VALUE(acltdtDataItem *, acltdtCreateDataItem, kQueue, NULL, (acltdtTensorType tdtType, const int64_t *dims, size_t dimNum, aclDataType dataType, void *data, size_t size),
               (void)tdtType; (void)dims; (void)dimNum; (void)dataType; (void)data; (void)size)
HG_UNSUPPORTED(acltdtDestroyDataItem, kQueue, (acltdtDataItem *dataItem),
               (void)dataItem)
HG_UNSUPPORTED_VALUE(acltdtDataset *, acltdtCreateDataset, kQueue, NULL, (void),
               (void)0)
HG_UNSUPPORTED(acltdtDestroyDataset, kQueue, (acltdtDataset *dataset),
               (void)dataset)
HG_UNSUPPORTED_VALUE(acltdtDataItem *, acltdtGetDataItem, kQueue, NULL, (const acltdtDataset *dataset, size_t index),
               (void)dataset; (void)index)
HG_UNSUPPORTED(acltdtAddDataItem, kQueue, (acltdtDataset *dataset, acltdtDataItem *dataItem),
               (void)dataset; (void)dataItem)
HG_UNSUPPORTED_VALUE(size_t, acltdtGetDatasetSize, kQueue, 0, (const acltdtDataset *dataset),
               (void)dataset)
HG_UNSUPPORTED_VALUE(const char *, acltdtGetDatasetName, kQueue, NULL, (const acltdtDataset *dataset),
               (void)dataset)
HG_UNSUPPORTED(acltdtCreateQueue, kQueue, (const acltdtQueueAttr *attr, uint32_t *qid),
               (void)attr; (void)qid)
HG_UNSUPPORTED(acltdtDestroyQueue, kQueue, (uint32_t qid),
               (void)qid)
HG_UNSUPPORTED(acltdtEnqueue, kQueue, (uint32_t qid, acltdtBuf buf, int32_t timeout),
               (void)qid; (void)buf; (void)timeout)
HG_UNSUPPORTED(acltdtDequeue, kQueue, (uint32_t qid, acltdtBuf *buf, int32_t timeout),
               (void)qid; (void)buf; (void)timeout)
HG_UNSUPPORTED(acltdtEnqueueData, kQueue, (uint32_t qid, const void *data, size_t dataSize, const void *userData, size_t userDataSize, int32_t timeout, uint32_t rsv),
               (void)qid; (void)data; (void)dataSize; (void)userData; (void)userDataSize; (void)timeout; (void)rsv)
HG_UNSUPPORTED(acltdtDequeueData, kQueue, (uint32_t qid, void *data, size_t dataSize, size_t *retDataSize, void *userData, size_t userDataSize, int32_t timeout),
               (void)qid; (void)data; (void)dataSize; (void)retDataSize; (void)userData; (void)userDataSize; (void)timeout)
HG_UNSUPPORTED(acltdtGrantQueue, kQueue, (uint32_t qid, int32_t pid, uint32_t permission, int32_t timeout),
               (void)qid; (void)pid; (void)permission; (void)timeout)
HG_UNSUPPORTED(acltdtAttachQueue, kQueue, (uint32_t qid, int32_t timeout, uint32_t *permission),
               (void)qid; (void)timeout; (void)permission)
HG_UNSUPPORTED(acltdtBindQueueRoutes, kQueue, (acltdtQueueRouteList *qRouteList),
               (void)qRouteList)
HG_UNSUPPORTED(acltdtUnbindQueueRoutes, kQueue, (acltdtQueueRouteList *qRouteList),
               (void)qRouteList)
HG_UNSUPPORTED(acltdtQueryQueueRoutes, kQueue, (const acltdtQueueRouteQueryInfo *queryInfo, acltdtQueueRouteList *qRouteList),
               (void)queryInfo; (void)qRouteList)
HG_UNSUPPORTED(acltdtAllocBuf, kQueue, (size_t size, uint32_t type, acltdtBuf *buf),
               (void)size; (void)type; (void)buf)
HG_UNSUPPORTED(acltdtFreeBuf, kQueue, (acltdtBuf buf),
               (void)buf)
HG_UNSUPPORTED(acltdtGetBufData, kQueue, (const acltdtBuf buf, void **dataPtr, size_t *size),
               (void)buf; (void)dataPtr; (void)size)
HG_UNSUPPORTED(acltdtSetBufDataLen, kQueue, (acltdtBuf buf, size_t len),
               (void)buf; (void)len)
HG_UNSUPPORTED(acltdtGetBufDataLen, kQueue, (acltdtBuf buf, size_t *len),
               (void)buf; (void)len)
HG_UNSUPPORTED(acltdtAppendBufChain, kQueue, (acltdtBuf headBuf, acltdtBuf buf),
               (void)headBuf; (void)buf)
HG_UNSUPPORTED(acltdtGetBufChainNum, kQueue, (acltdtBuf headBuf, uint32_t *num),
               (void)headBuf; (void)num)
HG_UNSUPPORTED(acltdtGetBufFromChain, kQueue, (acltdtBuf headBuf, uint32_t index, acltdtBuf *buf),
               (void)headBuf; (void)index; (void)buf)
HG_UNSUPPORTED(acltdtGetBufUserData, kQueue, (const acltdtBuf buf, void *dataPtr, size_t size, size_t offset),
               (void)buf; (void)dataPtr; (void)size; (void)offset)
HG_UNSUPPORTED(acltdtSetBufUserData, kQueue, (acltdtBuf buf, const void *dataPtr, size_t size, size_t offset),
               (void)buf; (void)dataPtr; (void)size; (void)offset)
HG_UNSUPPORTED(acltdtCopyBufRef, kQueue, (const acltdtBuf buf, acltdtBuf *newBuf),
               (void)buf; (void)newBuf)
HG_UNSUPPORTED_VALUE(acltdtQueueAttr *, acltdtCreateQueueAttr, kQueue, NULL, (void),
               (void)0)
HG_UNSUPPORTED(acltdtDestroyQueueAttr, kQueue, (const acltdtQueueAttr *attr),
               (void)attr)
HG_UNSUPPORTED(acltdtSetQueueAttr, kQueue, (acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, const void *param),
               (void)attr; (void)type; (void)len; (void)param)
HG_UNSUPPORTED(acltdtGetQueueAttr, kQueue, (const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, size_t *paramRetSize, void *param),
               (void)attr; (void)type; (void)len; (void)paramRetSize; (void)param)
HG_UNSUPPORTED_VALUE(acltdtQueueRoute *, acltdtCreateQueueRoute, kQueue, NULL, (uint32_t srcId, uint32_t dstId),
               (void)srcId; (void)dstId)
HG_UNSUPPORTED(acltdtDestroyQueueRoute, kQueue, (const acltdtQueueRoute *route),
               (void)route)
HG_UNSUPPORTED(acltdtGetQueueRouteParam, kQueue, (const acltdtQueueRoute *route, acltdtQueueRouteParamType type, size_t len, size_t *paramRetSize, void *param),
               (void)route; (void)type; (void)len; (void)paramRetSize; (void)param)
HG_UNSUPPORTED_VALUE(acltdtQueueRouteList *, acltdtCreateQueueRouteList, kQueue, NULL, (void),
               (void)0)
HG_UNSUPPORTED(acltdtDestroyQueueRouteList, kQueue, (const acltdtQueueRouteList *routeList),
               (void)routeList)
HG_UNSUPPORTED(acltdtAddQueueRoute, kQueue, (acltdtQueueRouteList *routeList, const acltdtQueueRoute *route),
               (void)routeList; (void)route)
HG_UNSUPPORTED(acltdtGetQueueRoute, kQueue, (const acltdtQueueRouteList *routeList, size_t index, acltdtQueueRoute *route),
               (void)routeList; (void)index; (void)route)
HG_UNSUPPORTED_VALUE(size_t, acltdtGetQueueRouteNum, kQueue, 0, (const acltdtQueueRouteList *routeList),
               (void)routeList)
HG_UNSUPPORTED_VALUE(acltdtQueueRouteQueryInfo *, acltdtCreateQueueRouteQueryInfo, kQueue, NULL, (void),
               (void)0)
HG_UNSUPPORTED(acltdtDestroyQueueRouteQueryInfo, kQueue, (const acltdtQueueRouteQueryInfo *info),
               (void)info)
HG_UNSUPPORTED(acltdtSetQueueRouteQueryInfo, kQueue, (acltdtQueueRouteQueryInfo *param, acltdtQueueRouteQueryInfoParamType type, size_t len, const void *value),
               (void)param; (void)type; (void)len; (void)value)

/* ---------------------------------------------------------------- Group */
HG_UNSUPPORTED(aclrtSetGroup, kGroup, (int32_t groupId),
               (void)groupId)
HG_UNSUPPORTED(aclrtGetGroupCount, kGroup, (uint32_t *count),
               (void)count)
HG_UNSUPPORTED_VALUE(aclrtGroupInfo *, aclrtCreateGroupInfo, kGroup, NULL, (void),
               (void)0)
HG_UNSUPPORTED(aclrtDestroyGroupInfo, kGroup, (aclrtGroupInfo *groupInfo),
               (void)groupInfo)
HG_UNSUPPORTED(aclrtGetAllGroupInfo, kGroup, (aclrtGroupInfo *groupInfo),
               (void)groupInfo)
HG_UNSUPPORTED(aclrtGetGroupInfoDetail, kGroup, (const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr, void *attrValue, size_t valueLen, size_t *paramRetSize),
               (void)groupInfo; (void)groupIndex; (void)attr; (void)attrValue; (void)valueLen; (void)paramRetSize)

/* ---------------------------------------------------------------- Ras */
HG_UNSUPPORTED(aclrtGetMemUceInfo, kRas, (int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize, size_t *retSize),
               (void)deviceId; (void)memUceInfoArray; (void)arraySize; (void)retSize)
HG_UNSUPPORTED(aclrtDeviceTaskAbort, kRas, (int32_t deviceId, uint32_t timeout),
               (void)deviceId; (void)timeout)
HG_UNSUPPORTED(aclrtMemUceRepair, kRas, (int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize),
               (void)deviceId; (void)memUceInfoArray; (void)arraySize)
HG_UNSUPPORTED(aclrtStreamAbort, kRas, (aclrtStream stream),
               (void)stream)
HG_UNSUPPORTED(aclrtSetDeviceTaskAbortCallback, kRas, (const char *regName, aclrtDeviceTaskAbortCallback callback, void *args),
               (void)regName; (void)callback; (void)args)
HG_UNSUPPORTED(aclrtStreamStop, kRas, (aclrtStream stream),
               (void)stream)
HG_UNSUPPORTED(aclrtRepairError, kRas, (int32_t deviceId, const aclrtErrorInfo *errorInfo),
               (void)deviceId; (void)errorInfo)

/* ---------------------------------------------------------------- Snapshot */
HG_UNSUPPORTED(aclrtSnapShotProcessLock, kSnapshot, (int pid, void *reserve),
               (void)pid; (void)reserve)
HG_UNSUPPORTED(aclrtSnapShotProcessUnlock, kSnapshot, (int pid, void *reserve),
               (void)pid; (void)reserve)
HG_UNSUPPORTED(aclrtSnapShotProcessBackup, kSnapshot, (int pid, aclrtSnapShotBackupArgs *args),
               (void)pid; (void)args)
HG_UNSUPPORTED(aclrtSnapShotProcessRestore, kSnapshot, (int pid, aclrtSnapShotRestoreArgs *args),
               (void)pid; (void)args)
HG_UNSUPPORTED(aclrtSnapShotCallbackRegister, kSnapshot, (aclrtSnapShotStage stage, aclrtSnapShotCallBack callback, void *args),
               (void)stage; (void)callback; (void)args)
HG_UNSUPPORTED(aclrtSnapShotCallbackUnregister, kSnapshot, (aclrtSnapShotStage stage, aclrtSnapShotCallBack callback),
               (void)stage; (void)callback)

/* ---------------------------------------------------------------- Cmo */
HG_UNSUPPORTED(aclrtMemFlush, kCmo, (void *devPtr, size_t size),
               (void)devPtr; (void)size)
HG_UNSUPPORTED(aclrtMemInvalidate, kCmo, (void *devPtr, size_t size),
               (void)devPtr; (void)size)
HG_UNSUPPORTED(aclrtCmoAsync, kCmo, (void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream),
               (void)src; (void)size; (void)cmoType; (void)stream)
HG_UNSUPPORTED(aclrtCmoAsyncWithBarrier, kCmo, (void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId, aclrtStream stream),
               (void)src; (void)size; (void)cmoType; (void)barrierId; (void)stream)
HG_UNSUPPORTED(aclrtCmoWaitBarrier, kCmo, (aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag),
               (void)taskInfo; (void)stream; (void)flag)
HG_UNSUPPORTED(aclrtCmoGetDescSize, kCmo, (size_t *size),
               (void)size)
HG_UNSUPPORTED(aclrtCmoSetDesc, kCmo, (void *cmoDesc, void *src, size_t size),
               (void)cmoDesc; (void)src; (void)size)
HG_UNSUPPORTED(aclrtCmoAsyncWithDesc, kCmo, (void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream, const void *reserve),
               (void)cmoDesc; (void)cmoType; (void)stream; (void)reserve)
HG_UNSUPPORTED(aclrtDeviceL2CacheFlush, kCmo, (void *rsv),
               (void)rsv)

/* ---------------------------------------------------------------- Pci */
HG_UNSUPPORTED(aclrtDeviceGetPCIBusId, kPci, (int32_t deviceId, char *pciBusId, int32_t len),
               (void)deviceId; (void)pciBusId; (void)len)
HG_UNSUPPORTED(aclrtDeviceGetByPCIBusId, kPci, (const char *pciBusId, int32_t *deviceId),
               (void)pciBusId; (void)deviceId)

/* ---------------------------------------------------------------- HwAddr */
HG_UNSUPPORTED(aclrtCtxGetFloatOverflowAddr, kHwAddr, (void **overflowAddr),
               (void)overflowAddr)
HG_UNSUPPORTED(aclrtGetHardwareSyncAddr, kHwAddr, (void **addr),
               (void)addr)

/* ---------------------------------------------------------------- Notify */
HG_UNSUPPORTED(aclrtCreateNotify, kNotify, (aclrtNotify *notify, uint64_t flag),
               (void)notify; (void)flag)
HG_UNSUPPORTED(aclrtDestroyNotify, kNotify, (aclrtNotify notify),
               (void)notify)
HG_UNSUPPORTED(aclrtCntNotifyCreate, kNotify, (aclrtCntNotify *cntNotify, uint64_t flag),
               (void)cntNotify; (void)flag)
HG_UNSUPPORTED(aclrtCntNotifyDestroy, kNotify, (aclrtCntNotify cntNotify),
               (void)cntNotify)
HG_UNSUPPORTED(aclrtRecordNotify, kNotify, (aclrtNotify notify, aclrtStream stream),
               (void)notify; (void)stream)
HG_UNSUPPORTED(aclrtWaitAndResetNotify, kNotify, (aclrtNotify notify, aclrtStream stream, uint32_t timeout),
               (void)notify; (void)stream; (void)timeout)
HG_UNSUPPORTED(aclrtGetNotifyId, kNotify, (aclrtNotify notify, uint32_t *notifyId),
               (void)notify; (void)notifyId)
HG_UNSUPPORTED(aclrtNotifyBatchReset, kNotify, (aclrtNotify *notifies, size_t num),
               (void)notifies; (void)num)
HG_UNSUPPORTED(aclrtCntNotifyRecord, kNotify, (aclrtCntNotify cntNotify, aclrtStream stream, aclrtCntNotifyRecordInfo *info),
               (void)cntNotify; (void)stream; (void)info)
HG_UNSUPPORTED(aclrtCntNotifyWaitWithTimeout, kNotify, (aclrtCntNotify cntNotify, aclrtStream stream, aclrtCntNotifyWaitInfo *info),
               (void)cntNotify; (void)stream; (void)info)
HG_UNSUPPORTED(aclrtCntNotifyReset, kNotify, (aclrtCntNotify cntNotify, aclrtStream stream),
               (void)cntNotify; (void)stream)
HG_UNSUPPORTED(aclrtCntNotifyGetId, kNotify, (aclrtCntNotify cntNotify, uint32_t *notifyId),
               (void)cntNotify; (void)notifyId)

/* ---------------------------------------------------------------- SdmaDesc */
HG_UNSUPPORTED(aclrtMemcpyAsyncWithCondition, kSdmaDesc, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream),
               (void)dst; (void)destMax; (void)src; (void)count; (void)kind; (void)stream)
HG_UNSUPPORTED(aclrtGetMemcpyDescSize, kSdmaDesc, (aclrtMemcpyKind kind, size_t *descSize),
               (void)kind; (void)descSize)
HG_UNSUPPORTED(aclrtSetMemcpyDesc, kSdmaDesc, (void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count, void *config),
               (void)desc; (void)kind; (void)srcAddr; (void)dstAddr; (void)count; (void)config)
HG_UNSUPPORTED(aclrtMemcpyAsyncWithOffset, kSdmaDesc, (void **dst, size_t destMax, size_t dstDataOffset, const void **src, size_t count, size_t srcDataOffset, aclrtMemcpyKind kind, aclrtStream stream),
               (void)dst; (void)destMax; (void)dstDataOffset; (void)src; (void)count; (void)srcDataOffset; (void)kind; (void)stream)
HG_UNSUPPORTED(aclrtMemcpyAsyncWithDesc, kSdmaDesc, (void *desc, aclrtMemcpyKind kind, aclrtStream stream),
               (void)desc; (void)kind; (void)stream)

/* ---------------------------------------------------------------- Prof */
HG_UNSUPPORTED(aclrtProfTrace, kProf, (void *userdata, int32_t length, aclrtStream stream),
               (void)userdata; (void)length; (void)stream)

/* ---------------------------------------------------------------- Engine */
HG_UNSUPPORTED(aclrtMallocForTaskScheduler, kEngine, (void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg),
               (void)devPtr; (void)size; (void)policy; (void)cfg)
HG_UNSUPPORTED(aclrtRandomNumAsync, kEngine, (const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream, void *reserve),
               (void)taskInfo; (void)stream; (void)reserve)

/* ---------------------------------------------------------------- ExcInfo */
HG_UNSUPPORTED(aclrtCacheLastTaskOpInfo, kExcInfo, (const void * const infoPtr, const size_t infoSize),
               (void)infoPtr; (void)infoSize)
HG_UNSUPPORTED(aclrtCacheLastTaskExtendInfo, kExcInfo, (const char * const extendInfoPtr, const size_t infoSize),
               (void)extendInfoPtr; (void)infoSize)

/* ---------------------------------------------------------------- Todo */
HG_UNSUPPORTED(aclrtGetMemUsageInfo, kTodo, (int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum, size_t *outputNum),
               (void)deviceId; (void)memUsageInfo; (void)inputNum; (void)outputNum)
HG_UNSUPPORTED(aclrtDeviceGetHostAtomicCapabilities, kTodo, (uint32_t *capabilities, const aclrtAtomicOperation *operations, const uint32_t count, int32_t deviceId),
               (void)capabilities; (void)operations; (void)count; (void)deviceId)
HG_UNSUPPORTED(aclrtDeviceGetP2PAtomicCapabilities, kTodo, (uint32_t *capabilities, const aclrtAtomicOperation *operations, const uint32_t count, int32_t srcDeviceId, int32_t dstDeviceId),
               (void)capabilities; (void)operations; (void)count; (void)srcDeviceId; (void)dstDeviceId)
HG_UNSUPPORTED(aclrtGetDevicesTopo, kTodo, (uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value),
               (void)deviceId; (void)otherDeviceId; (void)value)
HG_UNSUPPORTED(aclrtMemcpyBatch, kTodo, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex),
               (void)dsts; (void)destMaxs; (void)srcs; (void)sizes; (void)numBatches; (void)attrs; (void)attrsIndexes; (void)numAttrs; (void)failIndex)
HG_UNSUPPORTED(aclrtMemcpyBatchV2, kTodo, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs),
               (void)dsts; (void)destMaxs; (void)srcs; (void)sizes; (void)numBatches; (void)attrs; (void)attrsIndexes; (void)numAttrs)
HG_UNSUPPORTED(aclrtMemcpyBatchAsync, kTodo, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex, aclrtStream stream),
               (void)dsts; (void)destMaxs; (void)srcs; (void)sizes; (void)numBatches; (void)attrs; (void)attrsIndexes; (void)numAttrs; (void)failIndex; (void)stream)
HG_UNSUPPORTED(aclrtMemcpyBatchAsyncV2, kTodo, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, aclrtStream stream),
               (void)dsts; (void)destMaxs; (void)srcs; (void)sizes; (void)numBatches; (void)attrs; (void)attrsIndexes; (void)numAttrs; (void)stream)
HG_UNSUPPORTED(aclrtCheckMemType, kTodo, (void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult, uint32_t reserve),
               (void)addrList; (void)size; (void)memType; (void)checkResult; (void)reserve)
HG_UNSUPPORTED(aclrtRegStreamStateCallback, kTodo, (const char *regName, aclrtStreamStateCallback callback, void *args),
               (void)regName; (void)callback; (void)args)
HG_UNSUPPORTED(aclrtRegDeviceStateCallback, kTodo, (const char *regName, aclrtDeviceStateCallback callback, void *args),
               (void)regName; (void)callback; (void)args)
