/*
 * pyacl_hardgrad: tensor, scalar and executor handles of the aclnn operator API.
 * Names, values and prototypes follow CANN's public ABI.
 */
#ifndef PYACL_HARDGRAD_ACLNN_ACL_META_H_
#define PYACL_HARDGRAD_ACLNN_ACL_META_H_

#include "../acl/acl_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;

typedef int32_t aclnnStatus;

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE 561104
#define ACLNN_ERR_INNER_KEY_CONFILICT 561105
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE 561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED 561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND 561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID 561110
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND 561111

/* Tensor descriptor over device memory: view shape, strides and offset in elements,
 * storage shape of the whole allocation.  Returns NULL on a malformed descriptor and
 * leaves the reason in aclGetRecentErrMsg(). */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride, int64_t offset,
                                               aclFormat format, const int64_t *storageDims,
                                               uint64_t storageDimsNum, void *tensorData);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);

/* Scalar holding a copy of *value interpreted as dataType. */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);

ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);

/* Executors: one run each, unless made repeatable right after phase 1. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNN_ACL_META_H_ */
