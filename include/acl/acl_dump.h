/*
 * pyacl_hardgrad: data dump and exception dump (acldump*, aclopStartDumpArgs), with CANN's
 * names, values and prototypes.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_DUMP_H_
#define PYACL_HARDGRAD_ACL_ACL_DUMP_H_

#ifndef PYACL_HARDGRAD_CDEF
#include <stdint.h>
#endif
#include "acl_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

#if defined(PYACL_HARDGRAD_CDEF)
#define ACL_DUMP_API
#define ACL_DUMP_WEAK
#elif defined(_MSC_VER)
#define ACL_DUMP_API __declspec(dllexport)
#define ACL_DUMP_WEAK
#else
#define ACL_DUMP_API __attribute__((visibility("default")))
#define ACL_DUMP_WEAK __attribute__((weak))
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U
#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef struct acldumpChunk {
    char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    uint32_t bufLen;
    uint32_t isLastChunk;
    int64_t offset;
    int32_t flag;
    uint8_t dataBuf[0];
} acldumpChunk;

ACL_DUMP_API aclError acldumpRegCallback(int32_t (* const messageCallback)(const acldumpChunk *, int32_t),
                                         int32_t flag);
ACL_DUMP_API void acldumpUnregCallback(void);
ACL_DUMP_API aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
ACL_DUMP_API aclError aclopStopDumpArgs(uint32_t dumpType);

typedef enum acldumpType {
    AIC_ERR_BRIEF_DUMP = 1,
    AIC_ERR_NORM_DUMP = 2,
    AIC_ERR_DETAIL_DUMP = 3,
    DATA_DUMP = 4,
    OVERFLOW_DUMP = 5
} acldumpType;

ACL_DUMP_API const char *acldumpGetPath(acldumpType dumpType);

typedef enum acldumpTensorType {
    ACL_DUMP_TENSOR_INPUT = 0,
    ACL_DUMP_TENSOR_OUTPUT,
    ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

typedef enum acldumpTensorAddressType {
    ACL_DUMP_ADDR_PTR = 0,
    ACL_DUMP_ADDR_PTR_PTR,
    ACL_DUMP_ADDR_RAW
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
    ACL_DUMP_PLACEMENT_DEVICE = 0,
    ACL_DUMP_PLACEMENT_HOST,
    ACL_DUMP_PLACEMENT_END
} acldumpTensorPlacement;

typedef struct acldumpTensorInfo {
    acldumpTensorType type;
    size_t tensorSize;
    int32_t format;
    int32_t dataType;
    int64_t *tensorAddr;
    acldumpTensorAddressType addrType;
    acldumpTensorPlacement placement;
    uint32_t argsOffset;
    uint32_t shapeNum;
    uint32_t originShapeNum;
    uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
    uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

ACL_DUMP_WEAK ACL_DUMP_API aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                                               const acldumpTensorInfo *tensors, size_t tensorCount);
ACL_DUMP_WEAK ACL_DUMP_API aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACL_ACL_DUMP_H_ */
